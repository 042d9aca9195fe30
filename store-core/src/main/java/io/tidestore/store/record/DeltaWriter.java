package io.tidestore.store.record;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Appends deltas ({@link DeltaDescriptor}) to a growable heap buffer that is reused from batch to
 * batch. Owner-thread only.
 */
public final class DeltaWriter {
  private byte[] bytes = new byte[16 << 10];
  private MemorySegment view = MemorySegment.ofArray(bytes);
  private int length;
  private int count;

  public void reset() {
    length = 0;
    count = 0;
  }

  public int length() {
    return length;
  }

  public int count() {
    return count;
  }

  /** The encoded deltas, {@code [0, length())}. */
  public MemorySegment bytes() {
    return view.asSlice(0, length);
  }

  /** Copies the encoded deltas, {@code [0, length())}, to {@code dst} at {@code offset}. */
  public void copyTo(MemorySegment dst, long offset) {
    MemorySegment.copy(view, 0, dst, offset, length);
  }

  /** Encoded size of a WRITE delta of {@code blocks} blocks. */
  public static int writeLength(int blocks) {
    return DeltaDescriptor.WRITE_FIXED + 4 * blocks;
  }

  /** Encoded size of a CREATE delta for a name of {@code nameBytes} bytes. */
  public static int createLength(int nameBytes) {
    return 1 + 8 + 8 + 2 + nameBytes;
  }

  /** Encoded size of a SET_XATTR delta for a name and value of these UTF-8 / byte lengths. */
  public static int setXattrLength(int nameBytes, int valueBytes) {
    return 1 + 8 + 2 + nameBytes + 4 + valueBytes;
  }

  /** Encoded size of a REMOVE_XATTR delta for a name of {@code nameBytes} UTF-8 bytes. */
  public static int removeXattrLength(int nameBytes) {
    return 1 + 8 + 2 + nameBytes;
  }

  public void create(long id, long pool, byte[] name) {
    ensure(createLength(name.length));
    putByte(DeltaDescriptor.CREATE);
    putLong(id);
    putLong(pool);
    putBytes16(name);
    count++;
  }

  /** Starts a WRITE delta; the caller then adds exactly {@code blocks} crcs with {@link #crc}. */
  public void write(long id, int firstBlock, int blocks, long endByte) {
    ensure(writeLength(blocks));
    putByte(DeltaDescriptor.WRITE);
    putLong(id);
    putInt(firstBlock);
    putInt(blocks);
    putLong(endByte);
    count++;
  }

  public void crc(int crc) {
    ensure(4);
    putInt(crc);
  }

  public void truncate(long id, long size) {
    ensure(DeltaDescriptor.TRUNCATE_LENGTH);
    putByte(DeltaDescriptor.TRUNCATE);
    putLong(id);
    putLong(size);
    count++;
  }

  public void remove(long id) {
    ensure(DeltaDescriptor.REMOVE_LENGTH);
    putByte(DeltaDescriptor.REMOVE);
    putLong(id);
    count++;
  }

  public void setXattr(long id, String name, byte[] value) {
    byte[] n = name.getBytes(StandardCharsets.UTF_8);
    ensure(setXattrLength(n.length, value.length));
    putByte(DeltaDescriptor.SET_XATTR);
    putLong(id);
    putBytes16(n);
    putInt(value.length);
    System.arraycopy(value, 0, bytes, length, value.length);
    length += value.length;
    count++;
  }

  public void removeXattr(long id, String name) {
    byte[] n = name.getBytes(StandardCharsets.UTF_8);
    ensure(removeXattrLength(n.length));
    putByte(DeltaDescriptor.REMOVE_XATTR);
    putLong(id);
    putBytes16(n);
    count++;
  }

  /** Makes blocks {@code [firstBlock, firstBlock + blocks)} of object {@code id} holes. */
  public void punch(long id, int firstBlock, int blocks) {
    ensure(DeltaDescriptor.PUNCH_LENGTH);
    putByte(DeltaDescriptor.PUNCH);
    putLong(id);
    putInt(firstBlock);
    putInt(blocks);
    count++;
  }

  public void relocate(long id, int block, int oldLocation, int crc) {
    ensure(DeltaDescriptor.RELOCATE_LENGTH);
    putByte(DeltaDescriptor.RELOCATE);
    putLong(id);
    putInt(block);
    putInt(oldLocation);
    putInt(crc);
    count++;
  }

  private void ensure(int more) {
    if (length + more > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
      view = MemorySegment.ofArray(bytes);
    }
  }

  private void putByte(byte b) {
    bytes[length++] = b;
  }

  private void putInt(int v) {
    view.set(Blocks.INT, length, v);
    length += 4;
  }

  private void putLong(long v) {
    view.set(Blocks.LONG, length, v);
    length += 8;
  }

  private void putBytes16(byte[] b) {
    view.set(Blocks.SHORT, length, (short) b.length);
    length += 2;
    System.arraycopy(b, 0, bytes, length, b.length);
    length += b.length;
  }
}
