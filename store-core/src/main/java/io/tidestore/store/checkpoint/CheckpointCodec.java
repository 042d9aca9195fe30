package io.tidestore.store.checkpoint;

import io.tidestore.store.api.ShardStore;
import io.tidestore.store.index.ObjectIndex;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.CorruptRecordException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.zip.CRC32C;

/**
 * Encodes the applied index into a checkpoint image (version 2, {@link StopBitBody}) and loads one
 * back (version 2, or 1 as older builds wrote it: {@link FixedBody}). Stateless.
 */
public final class CheckpointCodec {
  private CheckpointCodec() {}

  /**
   * Encodes the applied state of {@code index} into a block-aligned native image allocated in
   * {@code arena}, at the current version ({@link CheckpointDescriptor#VERSION}).
   */
  public static MemorySegment encode(
      Arena arena, int shard, long storeId, Checkpoint header, ObjectIndex index, CRC32C crc) {
    long bound = StopBitBody.maxLength(index);
    // Arena memory comes zeroed: reserved header fields and the last block's tail stay zero.
    MemorySegment room =
        arena.allocate(Blocks.roundUp(CheckpointDescriptor.BODY_OFFSET + bound), Blocks.SIZE);
    long[] count = new long[1];
    long body =
        StopBitBody.encode(room.asSlice(CheckpointDescriptor.BODY_OFFSET, bound), index, count);
    MemorySegment image = room.asSlice(0, Blocks.roundUp(CheckpointDescriptor.BODY_OFFSET + body));
    writeHeader(image, CheckpointDescriptor.VERSION, shard, storeId, header, body, count[0], crc);
    return image;
  }

  /**
   * Fills the header block of {@code image}, whose body of {@code body} bytes holding {@code
   * objects} objects is in place: the body crc first, the header's own crc last.
   */
  static void writeHeader(
      MemorySegment image,
      short version,
      int shard,
      long storeId,
      Checkpoint header,
      long body,
      long objects,
      CRC32C crc) {
    image.set(Blocks.INT, CheckpointDescriptor.MAGIC_OFFSET, CheckpointDescriptor.MAGIC);
    image.set(Blocks.SHORT, CheckpointDescriptor.VERSION_OFFSET, version);
    image.set(Blocks.INT, CheckpointDescriptor.SHARD_OFFSET, shard);
    image.set(
        Blocks.INT,
        CheckpointDescriptor.BODY_CRC_OFFSET,
        Blocks.crc(crc, image, CheckpointDescriptor.BODY_OFFSET, body));
    image.set(Blocks.LONG, CheckpointDescriptor.GENERATION_OFFSET, header.generation());
    image.set(Blocks.LONG, CheckpointDescriptor.LAST_SEQ_OFFSET, header.lastSeq());
    image.set(Blocks.LONG, CheckpointDescriptor.EPOCH_OFFSET, header.epoch());
    image.set(Blocks.INT, CheckpointDescriptor.NEXT_SEGMENT_OFFSET, header.nextSegment());
    image.set(Blocks.LONG, CheckpointDescriptor.NEXT_OFFSET_OFFSET, header.nextOffset());
    image.set(Blocks.LONG, CheckpointDescriptor.NEXT_OBJECT_ID_OFFSET, header.nextObjectId());
    image.set(Blocks.LONG, CheckpointDescriptor.BODY_LENGTH_OFFSET, body);
    image.set(Blocks.LONG, CheckpointDescriptor.OBJECT_COUNT_OFFSET, objects);
    image.set(Blocks.LONG, CheckpointDescriptor.STORE_ID_OFFSET, storeId);
    image.set(
        Blocks.INT,
        CheckpointDescriptor.CRC_OFFSET,
        Blocks.crc(crc, image, 0, CheckpointDescriptor.CRC_OFFSET));
  }

  /**
   * Decodes and verifies a checkpoint header block.
   *
   * @throws CorruptRecordException when magic, version, shard, store or crc do not match, or the
   *     body length or object count is negative, or the image's size in whole blocks would not be a
   *     long
   */
  public static Checkpoint decodeHeader(MemorySegment block, int shard, long storeId, CRC32C crc)
      throws CorruptRecordException {
    short version = block.get(Blocks.SHORT, CheckpointDescriptor.VERSION_OFFSET);
    if (block.get(Blocks.INT, CheckpointDescriptor.MAGIC_OFFSET) != CheckpointDescriptor.MAGIC
        || version < CheckpointDescriptor.OLDEST_VERSION
        || version > CheckpointDescriptor.VERSION) {
      throw new CorruptRecordException("no checkpoint magic/version");
    }
    if (block.get(Blocks.INT, CheckpointDescriptor.CRC_OFFSET)
        != Blocks.crc(crc, block, 0, CheckpointDescriptor.CRC_OFFSET)) {
      throw new CorruptRecordException("checkpoint header crc mismatch");
    }
    if (block.get(Blocks.INT, CheckpointDescriptor.SHARD_OFFSET) != shard
        || block.get(Blocks.LONG, CheckpointDescriptor.STORE_ID_OFFSET) != storeId) {
      throw new CorruptRecordException("checkpoint belongs to another shard or store");
    }
    long body = block.get(Blocks.LONG, CheckpointDescriptor.BODY_LENGTH_OFFSET);
    if (!imageSizeable(body)
        || block.get(Blocks.LONG, CheckpointDescriptor.OBJECT_COUNT_OFFSET) < 0) {
      throw new CorruptRecordException("checkpoint body length or object count out of range");
    }
    return new Checkpoint(
        block.get(Blocks.LONG, CheckpointDescriptor.GENERATION_OFFSET),
        block.get(Blocks.LONG, CheckpointDescriptor.LAST_SEQ_OFFSET),
        block.get(Blocks.LONG, CheckpointDescriptor.EPOCH_OFFSET),
        block.get(Blocks.INT, CheckpointDescriptor.NEXT_SEGMENT_OFFSET),
        block.get(Blocks.LONG, CheckpointDescriptor.NEXT_OFFSET_OFFSET),
        block.get(Blocks.LONG, CheckpointDescriptor.NEXT_OBJECT_ID_OFFSET),
        block.get(Blocks.LONG, CheckpointDescriptor.BODY_LENGTH_OFFSET),
        block.get(Blocks.LONG, CheckpointDescriptor.OBJECT_COUNT_OFFSET));
  }

  /**
   * Whether a body of {@code body} bytes gives an image (header block and body in whole blocks)
   * whose size is a long: mount sizes its read buffer so.
   */
  private static boolean imageSizeable(long body) {
    return body >= 0 && body <= Long.MAX_VALUE - 2L * CheckpointDescriptor.BODY_OFFSET;
  }

  /**
   * Verifies the body crc and loads every object into {@code index} (which must be empty). Only the
   * body's bytes are parsed, and all of them: each object once (by key and by id, ids from 1 and
   * below the next id), names valid UTF-8, a size within the largest object ({@link
   * ShardStore#MAX_OBJECT_BYTES}) and no block entries past it.
   *
   * @throws CorruptRecordException when the body crc fails or the body does not parse
   */
  public static void load(MemorySegment image, Checkpoint header, ObjectIndex index, CRC32C crc)
      throws CorruptRecordException {
    long body = header.bodyLength();
    if (!imageSizeable(body) || header.objectCount() < 0) {
      throw new CorruptRecordException("checkpoint body length or object count out of range");
    }
    if (body > image.byteSize() - CheckpointDescriptor.BODY_OFFSET) {
      throw new CorruptRecordException("checkpoint body is truncated");
    }
    if (image.get(Blocks.INT, CheckpointDescriptor.BODY_CRC_OFFSET)
        != Blocks.crc(crc, image, CheckpointDescriptor.BODY_OFFSET, body)) {
      throw new CorruptRecordException("checkpoint body crc mismatch");
    }
    // The header decodeHeader took is this image's first block; its version picks the body.
    switch (image.get(Blocks.SHORT, CheckpointDescriptor.VERSION_OFFSET)) {
      case 1 -> FixedBody.load(image, header, index);
      case 2 ->
          StopBitBody.load(
              image.asSlice(CheckpointDescriptor.BODY_OFFSET, body), header.objectCount(), index);
      default -> throw new CorruptRecordException("no checkpoint magic/version");
    }
    index.nextId(header.nextObjectId());
  }
}
