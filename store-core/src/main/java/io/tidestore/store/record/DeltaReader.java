package io.tidestore.store.record;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/** Decodes the deltas of one record, bounds-checked: a malformed delta is a corrupt record. */
public final class DeltaReader {
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
            need(p, n, end);
            String name = string(meta, p, n);
            p += n;
            visitor.create(id, pool, name);
          }
          case DeltaDescriptor.WRITE -> {
            need(p, 16, end);
            int first = meta.get(Blocks.INT, p);
            int blocks = meta.get(Blocks.INT, p + 4);
            long endByte = meta.get(Blocks.LONG, p + 8);
            p += 16;
            if (blocks < 0 || first < 0) {
              throw new CorruptRecordException("negative block count in WRITE delta");
            }
            need(p, 4L * blocks, end);
            visitor.write(id, first, blocks, endByte, meta, p, dataIndex);
            p += 4L * blocks;
            dataIndex += blocks;
          }
          case DeltaDescriptor.TRUNCATE -> {
            need(p, 8, end);
            visitor.truncate(id, meta.get(Blocks.LONG, p));
            p += 8;
          }
          case DeltaDescriptor.REMOVE -> visitor.remove(id);
          case DeltaDescriptor.SET_XATTR -> {
            need(p, 2, end);
            int n = Short.toUnsignedInt(meta.get(Blocks.SHORT, p));
            p += 2;
            need(p, n + 4L, end);
            String name = string(meta, p, n);
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
            String name = string(meta, p, n);
            p += n;
            visitor.removeXattr(id, name);
          }
          case DeltaDescriptor.RELOCATE -> {
            need(p, 12, end);
            visitor.relocate(
                id,
                meta.get(Blocks.INT, p),
                meta.get(Blocks.INT, p + 4),
                meta.get(Blocks.INT, p + 8),
                dataIndex);
            p += 12;
            dataIndex++;
          }
          case DeltaDescriptor.PUNCH -> {
            need(p, 8, end);
            int first = meta.get(Blocks.INT, p);
            int blocks = meta.get(Blocks.INT, p + 4);
            p += 8;
            if (blocks < 0 || first < 0) {
              throw new CorruptRecordException("negative block range in PUNCH delta");
            }
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

  private static String string(MemorySegment meta, long p, int n) {
    return new String(meta.asSlice(p, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
  }
}
