package io.tidestore.store.checkpoint;

import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.index.ObjectEntry;
import io.tidestore.store.index.ObjectIndex;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.CorruptRecordException;
import io.tidestore.store.record.Utf8;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The body of a version 1 checkpoint, fixed-width fields (docs/format.md, "Index checkpoint"): read
 * only, so a store whose newest checkpoint an older build wrote still mounts; the next checkpoint
 * is written at version 2 ({@link StopBitBody}).
 */
final class FixedBody {
  private FixedBody() {}

  /**
   * Loads {@code header.objectCount()} objects from the body of {@code image} (which ends where the
   * body does, or later) into {@code index}.
   */
  static void load(MemorySegment image, Checkpoint header, ObjectIndex index)
      throws CorruptRecordException {
    long body = header.bodyLength();
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
        e.reserveBlocks(slots);
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
  }
}
