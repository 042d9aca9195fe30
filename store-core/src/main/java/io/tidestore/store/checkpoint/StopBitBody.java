package io.tidestore.store.checkpoint;

import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.index.BlockEntry;
import io.tidestore.store.index.ObjectEntry;
import io.tidestore.store.index.ObjectIndex;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.CorruptRecordException;
import io.tidestore.store.record.Utf8;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.BufferUnderflowException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.PointerBytesStore;
import net.openhft.chronicle.core.io.IORuntimeException;

/**
 * The body of a version 2 checkpoint, written and read with chronicle-bytes over the image's native
 * memory: every number is a stop-bit varint (7 bits a byte, low bits first, the top bit set on all
 * but the last byte), and a block entry is its location's distance from where the previous mapped
 * block would continue, so a sequentially written object costs 5 bytes per 4 KiB block (1 + its
 * crc) instead of version 1's 8. Layout in docs/format.md ("Index checkpoint").
 *
 * <p>Chronicle checks bounds when reading (a short or lying body is a {@link
 * BufferUnderflowException}, a varint longer than 9 bytes an {@link IORuntimeException}: both are
 * turned into {@link CorruptRecordException}) but not when writing to memory it does not own: the
 * encoder writes into an image sized for the most the body can take ({@link #maxLength}), so it
 * never reaches past it.
 */
final class StopBitBody {
  private StopBitBody() {}

  /** The most bytes a stop-bit varint of a non-negative long takes (63 bits / 7). */
  private static final int MAX_VARINT = 9;

  /** The largest block location, as unsigned (location + 1 must fit the entry's 32 bits). */
  private static final long MAX_LOCATION = 0xFFFF_FFFEL;

  /** An upper bound of the body's length for {@code index}; the encoder never writes more. */
  static long maxLength(ObjectIndex index) {
    long n = 0;
    for (ObjectEntry e : index.entries()) {
      if (!e.exists) {
        continue;
      }
      n += 4L * MAX_VARINT + MAX_VARINT + e.key.nameBytes().length;
      // A mapped block: the distance (up to 2^33 zig-zagged: 5 bytes) and its crc.
      n += (long) mappedSlots(e) * 9;
      n += MAX_VARINT;
      for (var x : e.xattrs().entrySet()) {
        n += 2L * MAX_VARINT + utf8(x.getKey()).length + x.getValue().length;
      }
    }
    return n;
  }

  /**
   * Writes the existing objects of {@code index} from {@code body}'s start; returns the bytes
   * written and the count of objects in {@code counts[0]}.
   */
  static long encode(MemorySegment body, ObjectIndex index, long[] counts) {
    PointerBytesStore store = new PointerBytesStore();
    store.set(body.address(), body.byteSize());
    Bytes<Void> out = store.bytesForWrite();
    try {
      long count = 0;
      for (ObjectEntry e : index.entries()) {
        if (!e.exists) {
          continue;
        }
        count++;
        out.writeStopBit(e.id);
        out.writeStopBit(e.key.pool());
        byte[] name = e.key.nameBytes();
        out.writeStopBit(name.length);
        out.write(name);
        out.writeStopBit(e.size);
        int slots = mappedSlots(e);
        out.writeStopBit(slots);
        long next = 0;
        for (int b = 0; b < slots; b++) {
          long entry = e.block(b);
          if (BlockEntry.isHole(entry)) {
            out.writeStopBit(0);
            continue;
          }
          long location = Integer.toUnsignedLong(BlockEntry.location(entry));
          out.writeStopBit(zigZag(location - next) + 1);
          out.writeInt(BlockEntry.crc(entry));
          next = location + 1;
        }
        Map<String, byte[]> xattrs = e.xattrs();
        out.writeStopBit(xattrs.size());
        for (var x : xattrs.entrySet()) {
          byte[] xname = utf8(x.getKey());
          out.writeStopBit(xname.length);
          out.write(xname);
          out.writeStopBit(x.getValue().length);
          out.write(x.getValue());
        }
      }
      counts[0] = count;
      long written = out.writePosition();
      if (written > body.byteSize()) {
        // The bound above is wrong: memory past the image may be overwritten. Never continue.
        throw new IllegalStateException(
            "checkpoint body of " + written + " bytes overran its " + body.byteSize());
      }
      return written;
    } finally {
      out.releaseLast();
      store.releaseLast();
    }
  }

  /**
   * Loads {@code objects} objects from {@code body} (exactly its bytes) into {@code index}.
   *
   * @throws CorruptRecordException when the body does not parse or breaks a rule of the format
   */
  static void load(MemorySegment body, long objects, ObjectIndex index)
      throws CorruptRecordException {
    PointerBytesStore store = new PointerBytesStore();
    store.set(body.address(), Math.max(1, body.byteSize()));
    Bytes<Void> in = store.bytesForRead();
    try {
      in.readLimit(body.byteSize());
      for (long i = 0; i < objects; i++) {
        loadObject(body, in, index);
      }
      if (in.readRemaining() != 0) {
        throw new CorruptRecordException("checkpoint objects end before the body does");
      }
    } catch (BufferUnderflowException
        | IORuntimeException
        | IllegalArgumentException
        | IllegalStateException e) {
      // Chronicle: a body ending inside a field (underflow), a varint of more than 9 bytes (its
      // IORuntimeException); ObjectKey and the entry: a name or value no object can have.
      throw new CorruptRecordException("checkpoint body does not parse: " + e.getMessage());
    } finally {
      in.releaseLast();
      store.releaseLast();
    }
  }

  private static void loadObject(MemorySegment body, Bytes<Void> in, ObjectIndex index)
      throws CorruptRecordException {
    long id = count(in, "object id", Long.MAX_VALUE - 1);
    long pool = count(in, "pool", Long.MAX_VALUE);
    String name = string(body, in, ObjectKey.MAX_NAME_BYTES);
    ObjectKey key = new ObjectKey(pool, name);
    if (id < 1 || index.byId(id) != null || index.get(key) != null) {
      throw new CorruptRecordException("checkpoint object id " + id + " or its key twice");
    }
    ObjectEntry e = index.insert(key, id);
    e.exists = true;
    e.size = count(in, "object size", ShardStore.MAX_OBJECT_BYTES);
    // Bounding the size bounds the slots, and so the block map loading them takes.
    int slots = (int) count(in, "block count", Blocks.count(e.size));
    e.reserveBlocks(slots);
    long next = 0;
    for (int b = 0; b < slots; b++) {
      long code = count(in, "block entry", Long.MAX_VALUE);
      if (code == 0) {
        continue;
      }
      long location = next + unZigZag(code - 1);
      if (location < 0 || location > MAX_LOCATION) {
        throw new CorruptRecordException(
            "checkpoint object " + id + " block " + b + " at location " + location);
      }
      e.setBlock(b, BlockEntry.pack((int) location, in.readInt()));
      next = location + 1;
    }
    long xattrs = count(in, "xattr count", ShardStore.MAX_XATTRS);
    for (long x = 0; x < xattrs; x++) {
      String xname = string(body, in, ShardStore.MAX_XATTR_NAME_BYTES);
      int length = length(in, "xattr length", Integer.MAX_VALUE);
      byte[] value = body.asSlice(in.readPosition(), length).toArray(ValueLayout.JAVA_BYTE);
      in.readSkip(length);
      e.setXattr(xname, value);
    }
  }

  /** A stop-bit varint that must lie in [0, max]. */
  private static long count(Bytes<Void> in, String what, long max) throws CorruptRecordException {
    long v = in.readStopBit();
    if (v < 0 || v > max) {
      throw new CorruptRecordException(
          "checkpoint " + what + " " + v + " outside [0, " + max + "]");
    }
    return v;
  }

  /** A length of at most {@code max} bytes that the rest of the body holds. */
  private static int length(Bytes<Void> in, String what, int max) throws CorruptRecordException {
    long v = in.readStopBit();
    // Checked once the varint is read: the bytes it took are not the length's to count.
    if (v < 0 || v > Math.min(max, in.readRemaining())) {
      throw new CorruptRecordException(
          "checkpoint " + what + " " + v + " outside [0, min(" + max + ", bytes left)]");
    }
    return (int) v;
  }

  /** A length-prefixed UTF-8 string of at most {@code max} bytes, decoded strictly. */
  private static String string(MemorySegment body, Bytes<Void> in, int max)
      throws CorruptRecordException {
    int length = length(in, "name length", max);
    String s = Utf8.decode(body, in.readPosition(), length);
    in.readSkip(length);
    return s;
  }

  /** Blocks up to the last mapped one within the size: trailing holes are not written. */
  private static int mappedSlots(ObjectEntry e) {
    int slots = (int) Math.min(e.blockSlots(), Blocks.count(e.size));
    while (slots > 0 && BlockEntry.isHole(e.block(slots - 1))) {
      slots--;
    }
    return slots;
  }

  private static long zigZag(long v) {
    return (v << 1) ^ (v >> 63);
  }

  private static long unZigZag(long v) {
    return (v >>> 1) ^ -(v & 1);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
