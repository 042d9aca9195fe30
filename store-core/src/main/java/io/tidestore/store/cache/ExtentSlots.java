package io.tidestore.store.cache;

import java.lang.foreign.MemorySegment;

/**
 * The extents of one cache, one slot each, in parallel primitive arrays (no object per extent): its
 * first key, block count, first page in {@link ExtentMemory}, bytes, pin count and state, plus the
 * list of slots still filling. Slots are named outside the cache by handles, {@code generation <<
 * 32 | slot}, so a handle kept past its extent's release throws instead of naming the slot's next
 * extent. Owner thread only.
 *
 * <p>States: FREE, then FILLING (allocated, invisible to lookups) or FILLING_STALE (its range was
 * written meanwhile: publish must refuse it), CACHED (published, indexed), RETIRED (dropped while
 * pinned: out of the index, freed at its last unpin).
 */
final class ExtentSlots {
  static final byte FREE = 0;
  static final byte FILLING = 1;
  static final byte FILLING_STALE = 2;
  static final byte CACHED = 3;
  static final byte RETIRED = 4;

  private final long[] startKey;
  private final int[] blocks;
  private final int[] page;
  private final int[] pins;
  private final int[] generation;
  private final byte[] state;
  private final MemorySegment[] segment;
  private final int[] freeSlots;
  private int freeSlotCount;

  /** The slots FILLING or FILLING_STALE, and each one's position in that list. */
  private final int[] filling;

  private final int[] fillPos;
  private int fillingCount;

  /** One slot per block of capacity: extents are at least one block, so slots never run out. */
  ExtentSlots(int capacityBlocks) {
    this.startKey = new long[capacityBlocks];
    this.blocks = new int[capacityBlocks];
    this.page = new int[capacityBlocks];
    this.pins = new int[capacityBlocks];
    this.generation = new int[capacityBlocks];
    this.state = new byte[capacityBlocks];
    this.fillPos = new int[capacityBlocks];
    this.segment = new MemorySegment[capacityBlocks];
    this.freeSlots = new int[capacityBlocks];
    this.filling = new int[capacityBlocks];
    for (int i = 0; i < capacityBlocks; i++) {
      freeSlots[i] = capacityBlocks - 1 - i;
    }
    this.freeSlotCount = capacityBlocks;
  }

  /** A new FILLING extent of {@code n} blocks at {@code key}, in memory from page {@code p}. */
  int allocate(long key, int n, int p, MemorySegment bytes) {
    int slot = freeSlots[--freeSlotCount];
    startKey[slot] = key;
    blocks[slot] = n;
    page[slot] = p;
    pins[slot] = 0;
    generation[slot]++;
    state[slot] = FILLING;
    segment[slot] = bytes;
    fillPos[slot] = fillingCount;
    filling[fillingCount++] = slot;
    return slot;
  }

  /** Frees the slot (its memory, from {@link #page}, is the caller's to free first). */
  void release(int slot) {
    state[slot] = FREE;
    segment[slot] = null;
    freeSlots[freeSlotCount++] = slot;
  }

  long handle(int slot) {
    return ((long) generation[slot] << 32) | slot;
  }

  /** The slot a live handle names; throws for a stale or malformed one. */
  int slotOf(long handle) {
    if (handle < 0) {
      throw new IllegalArgumentException("not an extent handle: " + handle);
    }
    int slot = (int) handle;
    if (slot >= state.length || generation[slot] != (int) (handle >>> 32) || state[slot] == FREE) {
      throw new IllegalStateException("stale extent handle: " + handle);
    }
    return slot;
  }

  long startKey(int slot) {
    return startKey[slot];
  }

  /** First page of the extent's memory. */
  int page(int slot) {
    return page[slot];
  }

  int blocks(int slot) {
    return blocks[slot];
  }

  MemorySegment segment(int slot) {
    return segment[slot];
  }

  byte state(int slot) {
    return state[slot];
  }

  void setState(int slot, byte s) {
    state[slot] = s;
  }

  boolean isFilling(int slot) {
    return state[slot] == FILLING || state[slot] == FILLING_STALE;
  }

  int pins(int slot) {
    return pins[slot];
  }

  /** Adds a pin; returns whether it is the extent's first. */
  boolean pin(int slot) {
    return pins[slot]++ == 0;
  }

  /** Drops a pin; returns whether it was the extent's last. */
  boolean unpin(int slot) {
    return --pins[slot] == 0;
  }

  /** Takes a slot off the filling list (published or abandoned). */
  void stopFilling(int slot) {
    int pos = fillPos[slot];
    int last = filling[--fillingCount];
    filling[pos] = last;
    fillPos[last] = pos;
  }

  /** Marks slots still filling that overlap keys [from, to) so their publish is refused. */
  void markFillsStale(long from, long to) {
    for (int i = 0; i < fillingCount; i++) {
      int slot = filling[i];
      long start = startKey[slot];
      if (start < to && start + blocks[slot] > from) {
        state[slot] = FILLING_STALE;
      }
    }
  }

  String describe(int slot) {
    return "object "
        + CacheKeys.objectId(startKey[slot])
        + " blocks ["
        + CacheKeys.block(startKey[slot])
        + ", +"
        + blocks[slot]
        + ") state "
        + state[slot];
  }
}
