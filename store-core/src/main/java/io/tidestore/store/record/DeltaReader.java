package io.tidestore.store.record;

import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ShardStore;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Decodes the deltas of one record, bounds-checked: a malformed delta is a corrupt record, and so
 * is one no replay could apply (a key an object cannot have, a name that is not UTF-8, a negative
 * location, a block or size outside the largest object), so a visitor never gets such values. The
 * bound matters beyond tidiness: replay grows an object's block array to the highest block a WRITE
 * names, so a block number near 2^31 in a record whose crcs match would allocate gigabytes.
 */
public final class DeltaReader {
  /** Blocks of the largest object ({@link ShardStore#MAX_OBJECT_BYTES}): no delta names more. */
  public static final int MAX_OBJECT_BLOCKS = (int) (ShardStore.MAX_OBJECT_BYTES / Blocks.SIZE);

  private DeltaReader() {}

  /**
   * Visits {@code count} deltas in {@code meta[offset, offset+length)}; returns the number of data
   * blocks they take.
   *
   * @throws CorruptRecordException when the deltas do not parse or overrun the metadata
   */
  public static int read(
      MemorySegment meta, long offset, int length, int count, DeltaVisitor visitor)
      throws CorruptRecordException {
    long p = offset;
    long end = offset + length;
    int dataIndex = 0;
    try {
      for (int i = 0; i < count; i++) {
        need(p, 1, end);
        byte type = meta.get(ValueLayout.JAVA_BYTE, p);
        p++;
        need(p, 8, end);
        long id = meta.get(Blocks.LONG, p);
        p += 8;
        switch (type) {
          case DeltaDescriptor.CREATE -> {
            need(p, 10, end);
            long pool = meta.get(Blocks.LONG, p);
            p += 8;
            int n = Short.toUnsignedInt(meta.get(Blocks.SHORT, p));
            p += 2;
            if (pool < 0 || n == 0 || n > ObjectKey.MAX_NAME_BYTES) {
              throw new CorruptRecordException("CREATE of a key no object can have");
            }
            need(p, n, end);
            String name = Utf8.decode(meta, p, n);
            p += n;
            visitor.create(id, pool, name);
          }
          case DeltaDescriptor.WRITE -> {
            need(p, 16, end);
            int first = meta.get(Blocks.INT, p);
            int blocks = meta.get(Blocks.INT, p + 4);
            long endByte = meta.get(Blocks.LONG, p + 8);
            p += 16;
            checkRange("WRITE", first, blocks);
            checkBytes("WRITE end byte", endByte);
            need(p, 4L * blocks, end);
            visitor.write(id, first, blocks, endByte, meta, p, dataIndex);
            p += 4L * blocks;
            dataIndex += blocks;
          }
          case DeltaDescriptor.TRUNCATE -> {
            need(p, 8, end);
            long size = meta.get(Blocks.LONG, p);
            checkBytes("TRUNCATE size", size);
            visitor.truncate(id, size);
            p += 8;
          }
          case DeltaDescriptor.REMOVE -> visitor.remove(id);
          case DeltaDescriptor.SET_XATTR -> {
            need(p, 2, end);
            int n = Short.toUnsignedInt(meta.get(Blocks.SHORT, p));
            p += 2;
            need(p, n + 4L, end);
            String name = Utf8.decode(meta, p, n);
            p += n;
            int vlen = meta.get(Blocks.INT, p);
            p += 4;
            if (vlen < 0) {
              throw new CorruptRecordException("negative xattr length");
            }
            need(p, vlen, end);
            byte[] value = meta.asSlice(p, vlen).toArray(ValueLayout.JAVA_BYTE);
            p += vlen;
            visitor.setXattr(id, name, value);
          }
          case DeltaDescriptor.REMOVE_XATTR -> {
            need(p, 2, end);
            int n = Short.toUnsignedInt(meta.get(Blocks.SHORT, p));
            p += 2;
            need(p, n, end);
            String name = Utf8.decode(meta, p, n);
            p += n;
            visitor.removeXattr(id, name);
          }
          case DeltaDescriptor.RELOCATE -> {
            need(p, 12, end);
            int block = meta.get(Blocks.INT, p);
            int oldLocation = meta.get(Blocks.INT, p + 4);
            checkRange("RELOCATE", block, 1);
            if (oldLocation < 0) {
              throw new CorruptRecordException("RELOCATE from a negative location " + oldLocation);
            }
            visitor.relocate(id, block, oldLocation, meta.get(Blocks.INT, p + 8), dataIndex);
            p += 12;
            dataIndex++;
          }
          case DeltaDescriptor.PUNCH -> {
            need(p, 8, end);
            int first = meta.get(Blocks.INT, p);
            int blocks = meta.get(Blocks.INT, p + 4);
            p += 8;
            checkRange("PUNCH", first, blocks);
            visitor.punch(id, first, blocks);
          }
          default -> throw new CorruptRecordException("unknown delta type " + type);
        }
      }
    } catch (IndexOutOfBoundsException e) {
      throw new CorruptRecordException("delta overruns the record: " + e.getMessage());
    }
    if (p != end) {
      throw new CorruptRecordException("deltas end at " + (p - offset) + ", not at " + length);
    }
    return dataIndex;
  }

  private static void need(long p, long n, long end) throws CorruptRecordException {
    if (p + n > end) {
      throw new CorruptRecordException("delta overruns the record metadata");
    }
  }

  /** Refuses blocks {@code [first, first + blocks)} unless all are blocks of the largest object. */
  private static void checkRange(String delta, int first, int blocks)
      throws CorruptRecordException {
    // In long: first + blocks may overflow an int.
    if (first < 0 || blocks < 0 || (long) first + blocks > MAX_OBJECT_BLOCKS) {
      throw new CorruptRecordException(
          delta
              + " delta of blocks ["
              + first
              + ", "
              + first
              + " + "
              + blocks
              + ") outside the largest object's "
              + MAX_OBJECT_BLOCKS
              + " blocks");
    }
  }

  /** Refuses a size or end byte outside {@code [0, MAX_OBJECT_BYTES]}. */
  private static void checkBytes(String what, long bytes) throws CorruptRecordException {
    if (bytes < 0 || bytes > ShardStore.MAX_OBJECT_BYTES) {
      throw new CorruptRecordException(
          what
              + " "
              + bytes
              + " outside [0, "
              + ShardStore.MAX_OBJECT_BYTES
              + "] (the largest object)");
    }
  }
}
