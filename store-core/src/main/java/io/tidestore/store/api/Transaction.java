package io.tidestore.store.api;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

/**
 * Several mutations of one shard that commit together, in one journal record, or not at all ({@link
 * ShardStore#submit}): Ceph's {@code ObjectStore::Transaction}. Replication needs it: an op's data,
 * its PG log entry and the object's version must never be durable one without the others, or a
 * crash would leave a replica that claims a version it does not hold.
 *
 * <p>Operations apply in the order they were added; each sees the effects of the earlier ones. They
 * never fail one by one: writes, truncates, attribute sets and touches create a missing object;
 * removes, punches and attribute removals of something missing do nothing (so that a transaction
 * replayed by recovery or sent twice is harmless). The whole transaction fails instead, with
 * nothing applied, when one operation is malformed (INVALID, checked before anything is staged),
 * when its record would not fit one segment (INVALID), or for lack of space or memory.
 *
 * <p>Every object must live in the shard the transaction is submitted to: the caller places the
 * objects (a PG's objects all in one shard) and the store does not check it.
 *
 * <p>Reuse: {@link #clear()} makes it empty again, keeping its arrays, so a replication loop
 * allocates nothing per transaction in the steady state. Write data is copied in by {@link #write};
 * the caller must not change or clear a submitted transaction until its completion ran. Not
 * thread-safe.
 */
public final class Transaction {
  /** What one operation does. */
  public enum Kind {
    WRITE,
    TRUNCATE,
    PUNCH,
    REMOVE,
    TOUCH,
    SET_XATTR,
    REMOVE_XATTR
  }

  private Kind[] kinds = new Kind[8];
  private ObjectKey[] keys = new ObjectKey[8];

  /** Offset (write, punch) or size (truncate). */
  private long[] first = new long[8];

  /** Length (write, punch), and for a write where its bytes start in {@link #data}. */
  private long[] lengths = new long[8];

  private long[] dataAt = new long[8];
  private String[] names = new String[8];
  private byte[][] values = new byte[8][];
  private int count;

  private byte[] data = new byte[0];
  private int dataBytes;

  /** Writes {@code bytes} at {@code offset} of {@code key} (copied now). */
  public Transaction write(ObjectKey key, long offset, MemorySegment bytes) {
    long len = bytes.byteSize();
    if (len > ShardStore.MAX_WRITE_BYTES || dataBytes + len > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          "a transaction holds at most " + ShardStore.MAX_WRITE_BYTES + " bytes of one write");
    }
    int at = dataBytes;
    if (at + len > data.length) {
      data = Arrays.copyOf(data, (int) Math.max(at + len, Math.min(data.length * 2L, 1 << 30)));
    }
    MemorySegment.copy(bytes, 0, MemorySegment.ofArray(data), at, len);
    dataBytes += (int) len;
    int i = add(Kind.WRITE, key);
    first[i] = offset;
    lengths[i] = len;
    dataAt[i] = at;
    return this;
  }

  /** Sets the size of {@code key}. */
  public Transaction truncate(ObjectKey key, long size) {
    // add() first: it may grow the arrays, and "first[add(...)]" would store into the old one.
    int i = add(Kind.TRUNCATE, key);
    first[i] = size;
    return this;
  }

  /** Frees whole blocks of {@code key}, as {@link ShardStore#punch}. */
  public Transaction punch(ObjectKey key, long offset, long length) {
    int i = add(Kind.PUNCH, key);
    first[i] = offset;
    lengths[i] = length;
    return this;
  }

  /** Removes {@code key} if it exists. */
  public Transaction remove(ObjectKey key) {
    add(Kind.REMOVE, key);
    return this;
  }

  /** Creates {@code key} empty if it does not exist. */
  public Transaction touch(ObjectKey key) {
    add(Kind.TOUCH, key);
    return this;
  }

  /** Sets an attribute of {@code key} (the value is not copied: do not change it). */
  public Transaction setXattr(ObjectKey key, String name, byte[] value) {
    int i = add(Kind.SET_XATTR, key);
    names[i] = Objects.requireNonNull(name, "name");
    values[i] = Objects.requireNonNull(value, "value");
    return this;
  }

  /** Removes an attribute of {@code key} if it exists. */
  public Transaction removeXattr(ObjectKey key, String name) {
    int i = add(Kind.REMOVE_XATTR, key); // first: add() may grow the arrays
    names[i] = Objects.requireNonNull(name, "name");
    return this;
  }

  private int add(Kind kind, ObjectKey key) {
    Objects.requireNonNull(key, "key");
    if (count == kinds.length) {
      int n = count * 2;
      kinds = Arrays.copyOf(kinds, n);
      keys = Arrays.copyOf(keys, n);
      first = Arrays.copyOf(first, n);
      lengths = Arrays.copyOf(lengths, n);
      dataAt = Arrays.copyOf(dataAt, n);
      names = Arrays.copyOf(names, n);
      values = Arrays.copyOf(values, n);
    }
    int i = count++;
    kinds[i] = kind;
    keys[i] = key;
    first[i] = lengths[i] = dataAt[i] = 0;
    names[i] = null;
    values[i] = null;
    return i;
  }

  /** Empties the transaction, keeping its capacity. */
  public void clear() {
    Arrays.fill(keys, 0, count, null);
    Arrays.fill(names, 0, count, null);
    Arrays.fill(values, 0, count, null);
    count = 0;
    dataBytes = 0;
  }

  /** Operations added. */
  public int size() {
    return count;
  }

  /** Bytes of write data added. */
  public long dataBytes() {
    return dataBytes;
  }

  public Kind kind(int i) {
    check(i);
    return kinds[i];
  }

  public ObjectKey key(int i) {
    check(i);
    return keys[i];
  }

  /** The offset of a write or punch, the size of a truncate, 0 otherwise. */
  public long offset(int i) {
    check(i);
    return first[i];
  }

  /** The length of a write or punch, 0 otherwise. */
  public long length(int i) {
    check(i);
    return lengths[i];
  }

  /** The bytes of a write (a view of this transaction's copy). */
  public MemorySegment data(int i) {
    check(i);
    if (kinds[i] != Kind.WRITE) {
      throw new IllegalArgumentException("operation " + i + " is a " + kinds[i] + ", not a write");
    }
    return MemorySegment.ofArray(data).asSlice(dataAt[i], lengths[i]);
  }

  /** The attribute name of a SET_XATTR or REMOVE_XATTR, null otherwise. */
  public String xattrName(int i) {
    check(i);
    return names[i];
  }

  /** The value of a SET_XATTR, null otherwise. */
  public byte[] xattrValue(int i) {
    check(i);
    return values[i];
  }

  private void check(int i) {
    Objects.checkIndex(i, count);
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("Transaction[");
    for (int i = 0; i < count; i++) {
      b.append(i == 0 ? "" : ", ").append(kinds[i]).append(' ').append(keys[i].name());
    }
    return b.append(']').toString();
  }
}
