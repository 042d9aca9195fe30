package io.tidestore.store.cache;

/**
 * A replacement policy over logical keys (see {@link CacheKeys}) weighted in 4 KiB blocks: it
 * decides which resident keys stay within a capacity in blocks, and remembers nothing but keys, so
 * the same code runs inside the extent cache and in the {@code cache-sim} trace replayer.
 *
 * <p>The access of the textbook algorithms is split in two because a real cache learns of a miss
 * before it has the data: {@link #recordHit} for a resident key, {@link #admit} once the missed
 * extent's data is ready. {@link #access} joins them for traces. With weight 1 everywhere and
 * nothing pinned, LRU and 2Q behave exactly as their papers say.
 *
 * <p><b>Threading:</b> not thread-safe. A policy belongs to one cache shard and is used only on
 * that shard's owner thread; nothing here allocates after construction.
 */
public interface ReplacementPolicy {

  PolicyKind kind();

  /** The capacity in blocks: the sum of resident weights never exceeds it. */
  long capacityBlocks();

  /** Whether {@code key} is resident (ghosts of 2Q's A1out are not). */
  boolean isResident(long key);

  /** Records a hit on a resident key; returns false (and changes nothing) if it is not resident. */
  boolean recordHit(long key);

  /**
   * Admits a key that missed, reclaiming (through the {@link EvictionHandler}) until it fits.
   * Returns false, admitting nothing, when it cannot fit: heavier than the capacity, or every
   * candidate victim is pinned. The key must not be resident.
   */
  boolean admit(long key, int weightBlocks);

  /**
   * Evicts one unpinned resident key by the policy's reclaim rule, e.g. when the extent memory is
   * fragmented; returns false if nothing can be evicted.
   */
  boolean evictOne();

  /**
   * Drops a resident key without counting an eviction (invalidation: the data changed or the object
   * is gone); returns whether it was resident.
   */
  boolean remove(long key);

  /** Sum of resident weights, in blocks. */
  long residentBlocks();

  /** Number of resident keys. */
  int residentCount();

  /** 2Q's A1in weight in blocks; 0 for LRU. */
  long a1inBlocks();

  /** 2Q's A1out (ghost keys) weight in blocks; 0 for LRU. */
  long a1outBlocks();

  /** 2Q's Am weight in blocks; for LRU its single list. */
  long amBlocks();

  /** Visits resident keys coldest first (the order they would be evicted in, roughly). */
  void forEachResident(KeyWeightConsumer visitor);

  /**
   * Inserts a resident key as warm, without reclaiming (for a policy switch, whose entries already
   * fit the same capacity): LRU's head, 2Q's Am head.
   */
  void adopt(long key, int weightBlocks);

  /**
   * A trace access of a single 4 KiB block: {@link #recordHit} if resident, else {@link #admit}
   * with weight 1. Returns whether it was a hit.
   */
  default boolean access(long key) {
    if (recordHit(key)) {
      return true;
    }
    admit(key, 1);
    return false;
  }

  /** A (key, weight) visitor that needs no boxing. */
  @FunctionalInterface
  interface KeyWeightConsumer {
    void accept(long key, int weightBlocks);
  }
}
