package io.tidestore.store.record;

import java.lang.foreign.MemorySegment;
import java.util.zip.CRC32C;

/** A decoded superblock ({@link SuperblockDescriptor}). Immutable. */
public record Superblock(
    int shard,
    int shardCount,
    long shardBytes,
    int segmentBytes,
    int segmentCount,
    long firstSegmentOffset,
    long generation,
    long epoch,
    long storeId) {

  /** Byte offset of segment {@code segment} in the shard's space. */
  public long segmentOffset(int segment) {
    return firstSegmentOffset + (long) segment * segmentBytes;
  }

  /** Which copy (0 or 1) this generation is written to. */
  public int copy() {
    return (int) (generation & 1);
  }

  public Superblock next(long newEpoch) {
    return new Superblock(
        shard,
        shardCount,
        shardBytes,
        segmentBytes,
        segmentCount,
        firstSegmentOffset,
        generation + 1,
        newEpoch,
        storeId);
  }

  /** Encodes into {@code block} (one 4 KiB block, zero-filled first). */
  public void encode(MemorySegment block, CRC32C crc) {
    block.asSlice(0, Blocks.SIZE).fill((byte) 0);
    block.set(Blocks.INT, SuperblockDescriptor.MAGIC_OFFSET, SuperblockDescriptor.MAGIC);
    block.set(Blocks.SHORT, SuperblockDescriptor.VERSION_OFFSET, SuperblockDescriptor.VERSION);
    block.set(Blocks.INT, SuperblockDescriptor.SHARD_OFFSET, shard);
    block.set(Blocks.INT, SuperblockDescriptor.SHARD_COUNT_OFFSET, shardCount);
    block.set(Blocks.LONG, SuperblockDescriptor.SHARD_BYTES_OFFSET, shardBytes);
    block.set(Blocks.INT, SuperblockDescriptor.SEGMENT_BYTES_OFFSET, segmentBytes);
    block.set(Blocks.INT, SuperblockDescriptor.SEGMENT_COUNT_OFFSET, segmentCount);
    block.set(Blocks.LONG, SuperblockDescriptor.FIRST_SEGMENT_OFFSET, firstSegmentOffset);
    block.set(Blocks.LONG, SuperblockDescriptor.GENERATION_OFFSET, generation);
    block.set(Blocks.LONG, SuperblockDescriptor.EPOCH_OFFSET, epoch);
    block.set(Blocks.LONG, SuperblockDescriptor.STORE_ID_OFFSET, storeId);
    block.set(
        Blocks.INT,
        SuperblockDescriptor.CRC_OFFSET,
        Blocks.crc(crc, block, 0, SuperblockDescriptor.CRC_OFFSET));
  }

  /** The format version a superblock copy was written at (before it is decoded and checked). */
  public static short version(MemorySegment block) {
    return block.get(Blocks.SHORT, SuperblockDescriptor.VERSION_OFFSET);
  }

  /**
   * Decodes one copy.
   *
   * @throws CorruptRecordException when magic, version, crc or geometry are wrong
   */
  public static Superblock decode(MemorySegment block, CRC32C crc) throws CorruptRecordException {
    if (block.get(Blocks.INT, SuperblockDescriptor.MAGIC_OFFSET) != SuperblockDescriptor.MAGIC) {
      throw new CorruptRecordException("no superblock magic");
    }
    short version = block.get(Blocks.SHORT, SuperblockDescriptor.VERSION_OFFSET);
    if (version < SuperblockDescriptor.OLDEST_VERSION || version > SuperblockDescriptor.VERSION) {
      throw new CorruptRecordException(
          "superblock version "
              + version
              + ", this build reads versions "
              + SuperblockDescriptor.OLDEST_VERSION
              + " to "
              + SuperblockDescriptor.VERSION
              + (version > SuperblockDescriptor.VERSION
                  ? ": the store was written by a newer Tidestore, run that one"
                  : ""));
    }
    int stored = block.get(Blocks.INT, SuperblockDescriptor.CRC_OFFSET);
    if (stored != Blocks.crc(crc, block, 0, SuperblockDescriptor.CRC_OFFSET)) {
      throw new CorruptRecordException("superblock crc mismatch");
    }
    Superblock sb =
        new Superblock(
            block.get(Blocks.INT, SuperblockDescriptor.SHARD_OFFSET),
            block.get(Blocks.INT, SuperblockDescriptor.SHARD_COUNT_OFFSET),
            block.get(Blocks.LONG, SuperblockDescriptor.SHARD_BYTES_OFFSET),
            block.get(Blocks.INT, SuperblockDescriptor.SEGMENT_BYTES_OFFSET),
            block.get(Blocks.INT, SuperblockDescriptor.SEGMENT_COUNT_OFFSET),
            block.get(Blocks.LONG, SuperblockDescriptor.FIRST_SEGMENT_OFFSET),
            block.get(Blocks.LONG, SuperblockDescriptor.GENERATION_OFFSET),
            block.get(Blocks.LONG, SuperblockDescriptor.EPOCH_OFFSET),
            block.get(Blocks.LONG, SuperblockDescriptor.STORE_ID_OFFSET));
    // Every field a mount computes with is checked here: the crc only proves the block is as
    // written, not that the writer was sane. Segments end inside shardBytes without overflow
    // (both counts are positive ints, so their product fits a long).
    if (sb.shardCount <= 0
        || sb.shard < 0
        || sb.shard >= sb.shardCount
        || sb.segmentBytes <= 0
        || sb.segmentBytes % Blocks.SIZE != 0
        || sb.segmentCount <= 0
        || sb.firstSegmentOffset < (long) SuperblockDescriptor.COPIES * Blocks.SIZE
        || sb.firstSegmentOffset % Blocks.SIZE != 0
        || sb.shardBytes <= sb.firstSegmentOffset
        || sb.shardBytes - sb.firstSegmentOffset < (long) sb.segmentCount * sb.segmentBytes) {
      throw new CorruptRecordException("superblock geometry is inconsistent: " + sb);
    }
    return sb;
  }
}
