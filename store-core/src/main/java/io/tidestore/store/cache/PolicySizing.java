package io.tidestore.store.cache;

/** Argument checks shared by the policies. */
final class PolicySizing {
  /**
   * Node arrays are int-indexed and a 2Q pool holds capacity + Kout (up to 4x capacity) nodes, so
   * the capacity stays well inside int range: 2^28 blocks is 1 TiB per shard.
   */
  static final long MAX_CAPACITY_BLOCKS = 1L << 28;

  private PolicySizing() {}

  static long checkCapacity(long capacityBlocks) {
    if (capacityBlocks < 1 || capacityBlocks > MAX_CAPACITY_BLOCKS) {
      throw new IllegalArgumentException(
          "capacity must be within [1, " + MAX_CAPACITY_BLOCKS + "] blocks: " + capacityBlocks);
    }
    return capacityBlocks;
  }

  static void checkWeight(int weightBlocks) {
    if (weightBlocks < 1) {
      throw new IllegalArgumentException("weight must be >= 1 block: " + weightBlocks);
    }
  }
}
