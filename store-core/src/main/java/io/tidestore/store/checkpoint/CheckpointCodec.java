package io.tidestore.store.checkpoint;

import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.index.ObjectEntry;
import io.tidestore.store.index.ObjectIndex;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.CorruptRecordException;
import io.tidestore.store.record.Utf8;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.zip.CRC32C;

/** Encodes the applied index into a checkpoint image and loads one back. Stateless. */
public final class CheckpointCodec {
  private CheckpointCodec() {}

  /**
   * Encodes the applied state of {@code index} into a block-aligned native image allocated in
   * {@code arena}.
   */
  public static MemorySegment encode(
      Arena arena, int shard, long storeId, Checkpoint header, ObjectIndex index, CRC32C crc) {
    long body = 0;
    long count = 0;
    for (ObjectEntry e : index.entries()) {
      if (e.exists) {
        body += entryLength(e);
        count++;
      }
    }
    long total = Blocks.roundUp(CheckpointDescriptor.BODY_OFFSET + body);
    MemorySegment image = arena.allocate(total, Blocks.SIZE);
    image.fill((byte) 0);
    long p = CheckpointDescriptor.BODY_OFFSET;
    for (ObjectEntry e : index.entries()) {
      if (!e.exists) {
        continue;
      }
      image.set(Blocks.LONG, p, e.id);
      image.set(Blocks.LONG, p + 8, e.key.pool());
      p = putString(image, p + 16, e.key.nameBytes());
      image.set(Blocks.LONG, p, e.size);
      int slots = (int) Math.min(e.blockSlots(), Blocks.count(e.size));
      image.set(Blocks.INT, p + 8, slots);
      p += 12;
      for (int b = 0; b < slots; b++) {
        image.set(Blocks.LONG, p, e.block(b));
        p += 8;
      }
      Map<String, byte[]> xattrs = e.xattrs();
      image.set(Blocks.SHORT, p, (short) xattrs.size());
      p += 2;
      for (var x : xattrs.entrySet()) {
        p = putString(image, p, x.getKey().getBytes(StandardCharsets.UTF_8));
        image.set(Blocks.INT, p, x.getValue().length);
        MemorySegment.copy(
            MemorySegment.ofArray(x.getValue()), 0, image, p + 4, x.getValue().length);
        p += 4 + x.getValue().length;
      }
    }
    MemorySegment h = image;
    h.set(Blocks.INT, CheckpointDescriptor.MAGIC_OFFSET, CheckpointDescriptor.MAGIC);
    h.set(Blocks.SHORT, CheckpointDescriptor.VERSION_OFFSET, CheckpointDescriptor.VERSION);
    h.set(Blocks.INT, CheckpointDescriptor.SHARD_OFFSET, shard);
    h.set(
        Blocks.INT,
        CheckpointDescriptor.BODY_CRC_OFFSET,
        Blocks.crc(crc, image, CheckpointDescriptor.BODY_OFFSET, body));
    h.set(Blocks.LONG, CheckpointDescriptor.GENERATION_OFFSET, header.generation());
    h.set(Blocks.LONG, CheckpointDescriptor.LAST_SEQ_OFFSET, header.lastSeq());
    h.set(Blocks.LONG, CheckpointDescriptor.EPOCH_OFFSET, header.epoch());
    h.set(Blocks.INT, CheckpointDescriptor.NEXT_SEGMENT_OFFSET, header.nextSegment());
    h.set(Blocks.LONG, CheckpointDescriptor.NEXT_OFFSET_OFFSET, header.nextOffset());
    h.set(Blocks.LONG, CheckpointDescriptor.NEXT_OBJECT_ID_OFFSET, header.nextObjectId());
    h.set(Blocks.LONG, CheckpointDescriptor.BODY_LENGTH_OFFSET, body);
    h.set(Blocks.LONG, CheckpointDescriptor.OBJECT_COUNT_OFFSET, count);
    h.set(Blocks.LONG, CheckpointDescriptor.STORE_ID_OFFSET, storeId);
    h.set(
        Blocks.INT,
        CheckpointDescriptor.CRC_OFFSET,
        Blocks.crc(crc, image, 0, CheckpointDescriptor.CRC_OFFSET));
    return image;
  }

  private static long entryLength(ObjectEntry e) {
    long n = 8 + 8 + 2 + e.key.nameBytes().length + 8 + 4;
    n += 8L * Math.min(e.blockSlots(), Blocks.count(e.size));
    n += 2;
    for (var x : e.xattrs().entrySet()) {
      n += 2 + x.getKey().getBytes(StandardCharsets.UTF_8).length + 4 + x.getValue().length;
    }
    return n;
  }

  private static long putString(MemorySegment image, long p, byte[] bytes) {
    image.set(Blocks.SHORT, p, (short) bytes.length);
    MemorySegment.copy(MemorySegment.ofArray(bytes), 0, image, p + 2, bytes.length);
    return p + 2 + bytes.length;
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
    if (block.get(Blocks.INT, CheckpointDescriptor.MAGIC_OFFSET) != CheckpointDescriptor.MAGIC
        || block.get(Blocks.SHORT, CheckpointDescriptor.VERSION_OFFSET)
            != CheckpointDescriptor.VERSION) {
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
    MemorySegment bytes = image.asSlice(0, CheckpointDescriptor.BODY_OFFSET + body);
    long p = CheckpointDescriptor.BODY_OFFSET;
    try {
      for (long i = 0; i < header.objectCount(); i++) {
        long id = bytes.get(Blocks.LONG, p);
        long pool = bytes.get(Blocks.LONG, p + 8);
        int nameLen = Short.toUnsignedInt(bytes.get(Blocks.SHORT, p + 16));
        ObjectKey key = new ObjectKey(pool, Utf8.decode(bytes, p + 18, nameLen));
        p += 18 + nameLen;
        if (id < 1 || id == Long.MAX_VALUE || index.byId(id) != null || index.get(key) != null) {
          throw new CorruptRecordException("checkpoint object id " + id + " or its key twice");
        }
        ObjectEntry e = index.insert(key, id);
        e.exists = true;
        e.size = bytes.get(Blocks.LONG, p);
        int slots = bytes.get(Blocks.INT, p + 8);
        // Bounding the size bounds the slots, and so the block array loading them grows.
        if (e.size < 0 || e.size > ShardStore.MAX_OBJECT_BYTES) {
          throw new CorruptRecordException(
              "checkpoint object "
                  + id
                  + " has size "
                  + e.size
                  + " outside [0, "
                  + ShardStore.MAX_OBJECT_BYTES
                  + "] (the largest object)");
        }
        if (slots < 0 || slots > Blocks.count(e.size)) {
          throw new CorruptRecordException("checkpoint object " + id + " has blocks past its size");
        }
        p += 12;
        for (int b = 0; b < slots; b++) {
          e.setBlock(b, bytes.get(Blocks.LONG, p));
          p += 8;
        }
        int xattrs = Short.toUnsignedInt(bytes.get(Blocks.SHORT, p));
        p += 2;
        for (int x = 0; x < xattrs; x++) {
          int n = Short.toUnsignedInt(bytes.get(Blocks.SHORT, p));
          String xname = Utf8.decode(bytes, p + 2, n);
          p += 2 + n;
          int vlen = bytes.get(Blocks.INT, p);
          byte[] value = bytes.asSlice(p + 4, vlen).toArray(ValueLayout.JAVA_BYTE);
          p += 4 + vlen;
          e.setXattr(xname, value);
        }
      }
    } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
      throw new CorruptRecordException("checkpoint body does not parse: " + e.getMessage());
    }
    if (p != bytes.byteSize()) {
      throw new CorruptRecordException("checkpoint objects end before the body does");
    }
    index.nextId(header.nextObjectId());
  }
}
