package io.tidestore.store.record;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * A decoded record header ({@link RecordDescriptor}). Encoding happens in place into the batch's
 * metadata buffer.
 *
 * @param storeId the store that wrote the record (format 2; 0 in a format 1 record)
 */
public record RecordHeader(
    int shard, long seq, long epoch, int metaLength, int dataBlocks, int deltaCount, long storeId) {

  /**
   * Whether this record belongs to the shard {@code sb} describes: same shard and same store. A
   * format 1 record carries no store id: it belongs where its shard number matches. (Stores on a
   * raw device are format 2 from mkfs on, so a stale record of an earlier store on the same device,
   * which mkfs cannot erase in bulk, is never taken for one of this store.)
   */
  public boolean belongsTo(Superblock sb) {
    return shard == sb.shard() && (storeId == sb.storeId() || storeId == 0);
  }

  public int metaBlocks() {
    return RecordDescriptor.metaBlocks(metaLength);
  }

  /** Whole record length in bytes. */
  public long length() {
    return ((long) metaBlocks() + dataBlocks)
        * Blocks.SIZE; // in long: both near 2^31 overflow an int
  }

  /**
   * Writes the header into {@code buf[0,64)} (the deltas must already be at 64) and its crc over
   * header and deltas.
   */
  public void encode(MemorySegment buf, CRC32C crc) {
    encode(
        buf,
        metaView(buf, metaLength),
        crc,
        shard,
        seq,
        epoch,
        metaLength,
        dataBlocks,
        deltaCount,
        storeId);
  }

  /**
   * {@link #encode(MemorySegment, CRC32C)} of a header with these fields, without making one or a
   * view of {@code buf}: the journal seals a record per write, and its write path allocates nothing
   * per operation.
   *
   * @param bytes {@code buf} as a ByteBuffer (index 0 is {@code buf}'s first byte), for the crc;
   *     its position and limit are changed
   */
  public static void encode(
      MemorySegment buf,
      ByteBuffer bytes,
      CRC32C crc,
      int shard,
      long seq,
      long epoch,
      int metaLength,
      int dataBlocks,
      int deltaCount,
      long storeId) {
    buf.set(Blocks.INT, RecordDescriptor.MAGIC_OFFSET, RecordDescriptor.MAGIC);
    buf.set(Blocks.SHORT, RecordDescriptor.VERSION_OFFSET, RecordDescriptor.VERSION);
    buf.set(Blocks.SHORT, RecordDescriptor.FLAGS_OFFSET, (short) 0);
    buf.set(Blocks.INT, RecordDescriptor.SHARD_OFFSET, shard);
    buf.set(Blocks.INT, RecordDescriptor.META_LENGTH_OFFSET, metaLength);
    buf.set(Blocks.LONG, RecordDescriptor.SEQ_OFFSET, seq);
    buf.set(Blocks.LONG, RecordDescriptor.EPOCH_OFFSET, epoch);
    buf.set(Blocks.INT, RecordDescriptor.DATA_BLOCKS_OFFSET, dataBlocks);
    buf.set(Blocks.INT, RecordDescriptor.DELTA_COUNT_OFFSET, deltaCount);
    buf.set(
        Blocks.INT, RecordDescriptor.META_BLOCKS_OFFSET, RecordDescriptor.metaBlocks(metaLength));
    buf.set(Blocks.LONG, RecordDescriptor.STORE_ID_OFFSET, storeId);
    buf.set(Blocks.LONG, RecordDescriptor.STORE_ID_OFFSET + 8, 0L);
    buf.set(Blocks.INT, RecordDescriptor.CRC_OFFSET, headerCrc(bytes, metaLength, crc));
  }

  /** The header and deltas of {@code buf} as a ByteBuffer, for {@link #headerCrc}. */
  private static ByteBuffer metaView(MemorySegment buf, int metaLength) {
    return buf.asSlice(0, RecordDescriptor.HEADER_LENGTH + (long) metaLength).asByteBuffer();
  }

  /** crc32c of the header before its crc field and of the deltas, read through {@code bytes}. */
  private static int headerCrc(ByteBuffer bytes, int metaLength, CRC32C crc) {
    crc.reset();
    bytes.clear().limit(RecordDescriptor.CRC_OFFSET);
    crc.update(bytes);
    bytes
        .limit(RecordDescriptor.HEADER_LENGTH + metaLength)
        .position(RecordDescriptor.HEADER_LENGTH);
    crc.update(bytes);
    return (int) crc.getValue();
  }

  /**
   * Decodes the header at {@code buf[0,..)}; {@code buf} must hold at least the first block. Does
   * not check the crc (the deltas may not be loaded yet): see {@link #verify}.
   *
   * @return null when the block does not start with a record header of this format at all
   */
  public static RecordHeader peek(MemorySegment buf, int maxLength) {
    short version = buf.get(Blocks.SHORT, RecordDescriptor.VERSION_OFFSET);
    if (buf.get(Blocks.INT, RecordDescriptor.MAGIC_OFFSET) != RecordDescriptor.MAGIC
        || version < RecordDescriptor.OLDEST_VERSION
        || version > RecordDescriptor.VERSION) {
      return null;
    }
    int metaLength = buf.get(Blocks.INT, RecordDescriptor.META_LENGTH_OFFSET);
    int dataBlocks = buf.get(Blocks.INT, RecordDescriptor.DATA_BLOCKS_OFFSET);
    int deltaCount = buf.get(Blocks.INT, RecordDescriptor.DELTA_COUNT_OFFSET);
    if (metaLength < 0 || dataBlocks < 0 || deltaCount < 0) {
      return null;
    }
    RecordHeader h =
        new RecordHeader(
            buf.get(Blocks.INT, RecordDescriptor.SHARD_OFFSET),
            buf.get(Blocks.LONG, RecordDescriptor.SEQ_OFFSET),
            buf.get(Blocks.LONG, RecordDescriptor.EPOCH_OFFSET),
            metaLength,
            dataBlocks,
            deltaCount,
            version >= 2 ? buf.get(Blocks.LONG, RecordDescriptor.STORE_ID_OFFSET) : 0);
    if (h.length() > maxLength
        || buf.get(Blocks.INT, RecordDescriptor.META_BLOCKS_OFFSET) != h.metaBlocks()) {
      return null;
    }
    return h;
  }

  /** Whether the header crc matches; {@code buf} holds at least {@link #metaBlocks()} blocks. */
  public boolean verify(MemorySegment buf, CRC32C crc) {
    return buf.get(Blocks.INT, RecordDescriptor.CRC_OFFSET)
        == headerCrc(metaView(buf, metaLength), metaLength, crc);
  }
}
