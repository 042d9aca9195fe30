package io.tidestore.store.index;

import io.tidestore.store.api.ObjectKey;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * One object in a shard's index. Two views live here, both touched only on the owner thread:
 *
 * <ul>
 *   <li>the <b>applied</b> state ({@link #exists}, {@link #size}, block entries, xattrs): what
 *       durable, in-order applied records say; reads and checkpoints use only this;
 *   <li>the <b>staged</b> state ({@code staged*}, {@link #pending}, {@link #waiting}): where the
 *       object will be once every batched or in-flight mutation applies; the write path uses it to
 *       order and merge mutations before they are durable.
 * </ul>
 */
public final class ObjectEntry {
  private static final long[] NO_BLOCKS = new long[0];

  public final ObjectKey key;
  public final long id;

  /** The index this entry is in, told of footprint changes; null when not in one. */
  ObjectIndex ownerIndex;

  // Applied state.
  public boolean exists;
  public long size;
  private long[] blocks = NO_BLOCKS;
  private int allocated;
  private TreeMap<String, byte[]> xattrs;

  // Staged state.
  public boolean stagedExists;
  public long stagedSize;

  /**
   * Sizes that staged, not yet applied truncates and removes (0) cut the object to, in staging
   * order; null when none. Applied blocks at or past the smallest are stale for merges: the cut
   * will drop them, and writes staged after it are in {@link #pending} until they apply.
   */
  public ArrayDeque<Long> cuts;

  /** Records a staged cut. */
  public void cutStaged(long size) {
    if (cuts == null) {
      cuts = new ArrayDeque<>();
    }
    cuts.add(size);
  }

  /** The oldest staged cut applied. */
  public void cutApplied() {
    if (cuts != null) {
      cuts.poll();
      if (cuts.isEmpty()) {
        cuts = null;
      }
    }
  }

  /** Smallest pending cut, Long.MAX_VALUE when none. */
  public long lowestCut() {
    long min = Long.MAX_VALUE;
    if (cuts != null) {
      for (long c : cuts) {
        min = Math.min(min, c);
      }
    }
    return min;
  }

  /** Blocks of batched or in-flight writes, by block index: the newest content for merges. */
  public HashMap<Integer, MemorySegment> pending;

  /** Mutations queued behind one that waits for a read-modify-write read; null when none. */
  public ArrayDeque<Runnable> waiting;

  public ObjectEntry(ObjectKey key, long id) {
    this.key = key;
    this.id = id;
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
    long before = footprintBytes();
    if (xattrs == null) {
      xattrs = new TreeMap<>();
    }
    xattrs.put(name, value);
    changed(before);
  }

  public void removeXattr(String name) {
    if (xattrs != null) {
      long before = footprintBytes();
      xattrs.remove(name);
      if (xattrs.isEmpty()) {
        xattrs = null;
      }
      changed(before);
    }
  }

  public void clearXattrs() {
    long before = footprintBytes();
    xattrs = null;
    changed(before);
  }

  private void changed(long footprintBefore) {
    if (ownerIndex != null) {
      ownerIndex.adjust(footprintBytes() - footprintBefore);
    }
  }

  /** Whether the write path holds nothing for this object (safe to drop once removed). */
  public boolean quiescent() {
    return !stagedExists
        && (pending == null || pending.isEmpty())
        && waiting == null
        && cuts == null;
  }

  /**
   * Heap bytes this entry costs, estimated from the JVM's object layout (16-byte headers,
   * compressed oops): the entry, its key and name, its block array, map nodes in the index (the
   * ordered map, the id map with its boxed key, and the hashed lookup: a 32-byte node and its table
   * slot), and its xattrs.
   */
  public long footprintBytes() {
    long bytes = 80 + 24 + 48 + key.name().length() + 16 + 8L * blocks.length + 40 + 48 + 16 + 40;
    if (xattrs != null) {
      for (var e : xattrs.entrySet()) {
        bytes += 40 + 48 + e.getKey().length() + 16 + e.getValue().length;
      }
    }
    return bytes;
  }
}
