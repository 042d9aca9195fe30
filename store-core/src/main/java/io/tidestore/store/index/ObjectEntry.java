package io.tidestore.store.index;

import io.tidestore.store.api.ObjectKey;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * One object in a shard's index: its applied state ({@link #exists}, {@link #size}, block entries,
 * xattrs), which is what durable, in-order applied records say. Reads and checkpoints use only
 * this. Where the object will be once batched or in-flight mutations apply is the write path's
 * business and lives with it (the shard's staging state), not here. Owner thread only.
 */
public final class ObjectEntry {
  private static final long[] NO_BLOCKS = new long[0];

  public final ObjectKey key;
  public final long id;

  /** The index this entry is in, told of footprint changes; null when not in one. */
  ObjectIndex ownerIndex;

  public boolean exists;
  public long size;
  private long[] blocks = NO_BLOCKS;
  private int allocated;
  private TreeMap<String, byte[]> xattrs;

  /** Heap bytes of {@link #xattrs}, kept as they change ({@link #xattrsChanged}). */
  private long xattrBytes;

  /** The key's placement hash once {@link #placementHash()} computed it; listing by hash only. */
  private int placementHash;

  private boolean placementHashKnown;

  ObjectEntry(ObjectKey key, long id) {
    this.key = key;
    this.id = id;
  }

  /**
   * {@link ObjectKey#placementHash()}, computed on the first call and kept: a listing by hash range
   * looks at every entry of a pool on every page; the two fields fit the entry's padding (56 bytes
   * with or without them, with 12-byte headers and compressed oops).
   */
  public int placementHash() {
    if (!placementHashKnown) {
      placementHash = key.placementHash();
      placementHashKnown = true;
    }
    return placementHash;
  }

  /** The entry of block {@code index}, {@link BlockEntry#HOLE} when unallocated. */
  public long block(long index) {
    return index < blocks.length ? blocks[(int) index] : BlockEntry.HOLE;
  }

  /** Sets block {@code index}; returns the previous entry. */
  public long setBlock(int index, long entry) {
    if (index >= blocks.length) {
      if (entry == BlockEntry.HOLE) {
        return BlockEntry.HOLE;
      }
      int capacity = Math.max(index + 1, Math.min(blocks.length * 2, 16384));
      long before = footprintBytes();
      blocks = Arrays.copyOf(blocks, Math.max(capacity, index + 1));
      changed(before);
    }
    long old = blocks[index];
    blocks[index] = entry;
    if (old == BlockEntry.HOLE && entry != BlockEntry.HOLE) {
      allocated++;
    } else if (old != BlockEntry.HOLE && entry == BlockEntry.HOLE) {
      allocated--;
    }
    return old;
  }

  /** Slots in the block array (allocated or holes). */
  public int blockSlots() {
    return blocks.length;
  }

  public int allocatedBlocks() {
    return allocated;
  }

  /** Shrinks the block array after a truncate so a shrunk object gives memory back. */
  public void trimBlocks(int slots) {
    if (slots < blocks.length / 2) {
      long before = footprintBytes();
      blocks = slots == 0 ? NO_BLOCKS : Arrays.copyOf(blocks, slots);
      changed(before);
    }
  }

  public Map<String, byte[]> xattrs() {
    return xattrs == null ? Map.of() : xattrs;
  }

  public byte[] xattr(String name) {
    return xattrs == null ? null : xattrs.get(name);
  }

  public void setXattr(String name, byte[] value) {
    if (xattrs == null) {
      xattrs = new TreeMap<>();
    }
    byte[] old = xattrs.put(name, value);
    xattrsChanged(xattrBytes(name, value) - (old == null ? 0 : xattrBytes(name, old)));
  }

  public void removeXattr(String name) {
    if (xattrs != null) {
      byte[] old = xattrs.remove(name);
      if (xattrs.isEmpty()) {
        xattrs = null;
      }
      if (old != null) {
        xattrsChanged(-xattrBytes(name, old));
      }
    }
  }

  public void clearXattrs() {
    xattrs = null;
    xattrsChanged(-xattrBytes);
  }

  /**
   * Counts {@code delta} more heap bytes of attributes, here and in the owning index: a running sum
   * rather than a recount: a PG's metadata object holds thousands of attributes (its log) and gains
   * or loses one with every operation of the PG.
   */
  private void xattrsChanged(long delta) {
    xattrBytes += delta;
    if (ownerIndex != null) {
      ownerIndex.adjust(delta);
    }
  }

  /** The block array changed size: tells the owning index the footprint's difference. */
  private void changed(long footprintBefore) {
    if (ownerIndex != null) {
      ownerIndex.adjust(footprintBytes() - footprintBefore);
    }
  }

  /** Heap bytes of one attribute: its tree node, name and value. */
  private static long xattrBytes(String name, byte[] value) {
    return 40 + 48 + name.length() + 16 + value.length;
  }

  /**
   * Heap bytes this entry costs, estimated from the JVM's object layout (16-byte headers,
   * compressed oops): the entry (with room for the write path's staging entry while a mutation of
   * the object is in flight), its key and name, its block array, map nodes in the index (the
   * ordered map, the id map with its boxed key, and the hashed lookup: a 32-byte node and its table
   * slot), and its xattrs.
   */
  public long footprintBytes() {
    long bytes = 80 + 24 + 48 + key.name().length() + 16 + 8L * blocks.length + 40 + 48 + 16 + 40;
    return bytes + xattrBytes;
  }
}
