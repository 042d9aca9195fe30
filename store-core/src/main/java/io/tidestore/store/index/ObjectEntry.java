package io.tidestore.store.index;

import io.tidestore.store.api.ObjectKey;
import java.util.Map;
import java.util.TreeMap;

/**
 * One object in a shard's index: its applied state ({@link #exists}, {@link #size}, block entries,
 * xattrs), which is what durable, in-order applied records say. Reads and checkpoints use only
 * this. Where the object will be once batched or in-flight mutations apply is the write path's
 * business and lives with it (the shard's staging state), not here.
 *
 * <p>The block map (one {@link BlockEntry} of 8 bytes per 4 KiB block) is off the heap, a region of
 * the index's {@link IndexArena} with room for a power of two of entries: an object's extents cost
 * no heap at all, and an object without data (a PG's metadata, a new object) has no region. Owner
 * thread only.
 */
public final class ObjectEntry {
  public final ObjectKey key;
  public final long id;

  /** The index this entry is in, told of footprint changes; null when not in one. */
  ObjectIndex ownerIndex;

  public boolean exists;
  public long size;

  /** Where the block map lives; kept after the entry leaves its index (it is then empty). */
  private final IndexArena arena;

  /** The block map's region, or {@link IndexArena#NONE}; {@link #slots} entries long. */
  private long blockMap = IndexArena.NONE;

  private int slots;
  private int allocated;
  private TreeMap<String, byte[]> xattrs;

  /** Heap bytes of {@link #xattrs}, kept as they change ({@link #xattrsChanged}). */
  private long xattrBytes;

  /** The key's placement hash once {@link #placementHash()} computed it; listing by hash only. */
  private int placementHash;

  private boolean placementHashKnown;

  ObjectEntry(ObjectKey key, long id, IndexArena arena) {
    this.key = key;
    this.id = id;
    this.arena = arena;
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
    return index >= 0 && index < slots ? arena.readLong(blockMap, index << 3) : BlockEntry.HOLE;
  }

  /** Sets block {@code index}; returns the previous entry. */
  public long setBlock(int index, long entry) {
    if (index >= slots) {
      if (entry == BlockEntry.HOLE) {
        return BlockEntry.HOLE;
      }
      resize(IndexArena.shiftFor(((long) index + 1) << 3));
    }
    long offset = (long) index << 3;
    long old = arena.readLong(blockMap, offset);
    arena.writeLong(blockMap, offset, entry);
    if (old == BlockEntry.HOLE && entry != BlockEntry.HOLE) {
      allocated++;
    } else if (old != BlockEntry.HOLE && entry == BlockEntry.HOLE) {
      allocated--;
    }
    return old;
  }

  /** Makes room for {@code slots} block entries at once (a checkpoint load knows the count). */
  public void reserveBlocks(int slots) {
    if (slots > this.slots) {
      resize(IndexArena.shiftFor((long) slots << 3));
    }
  }

  /** Slots in the block map (allocated or holes). */
  public int blockSlots() {
    return slots;
  }

  public int allocatedBlocks() {
    return allocated;
  }

  /**
   * Shrinks the block map after a truncate (to {@code slots}, of which none past it may be
   * allocated) so a shrunk object gives memory back.
   */
  public void trimBlocks(int slots) {
    if (slots < this.slots / 2) {
      resize(slots == 0 ? -1 : IndexArena.shiftFor((long) slots << 3));
    }
  }

  /** Gives the block map back (the entry leaves its index); the entry reads as holes after. */
  void freeBlocks() {
    resize(-1);
    allocated = 0;
  }

  /**
   * Moves the block map to a region of {@code 1 << shift} bytes (none for -1), keeping the entries
   * that fit, and tells the owning index when the arena grew.
   */
  private void resize(int shift) {
    long arenaBefore = arena.nativeBytes();
    long region = IndexArena.NONE;
    int newSlots = 0;
    if (shift >= 0) {
      region = arena.allocate(shift);
      newSlots = 1 << (shift - 3);
      if (slots > 0) {
        arena.copy(blockMap, region, (long) Math.min(slots, newSlots) << 3);
      }
    }
    if (slots > 0) {
      arena.free(blockMap, IndexArena.shiftFor((long) slots << 3));
    }
    blockMap = region;
    slots = newSlots;
    if (ownerIndex != null && arena.nativeBytes() != arenaBefore) {
      ownerIndex.adjust(0);
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

  /** Heap bytes of one attribute: its tree node, name and value. */
  private static long xattrBytes(String name, byte[] value) {
    return 40 + 48 + name.length() + 16 + value.length;
  }

  /**
   * Heap bytes this entry costs, estimated from the JVM's object layout (16-byte headers,
   * compressed oops): the entry (with room for the write path's staging entry while a mutation of
   * the object is in flight), its key and name, map nodes in the index (the ordered map, the id map
   * with its boxed key, and the hashed lookup: a 32-byte node and its table slot), and its xattrs.
   * The block map is off the heap, counted in the arena's {@link IndexArena#nativeBytes()}.
   */
  public long footprintBytes() {
    long bytes = 88 + 24 + 48 + key.name().length() + 40 + 48 + 16 + 40;
    return bytes + xattrBytes;
  }
}
