package io.tidestore.store.shard;

import io.tidestore.store.api.ShardStore;
import io.tidestore.store.record.Blocks;

/**
 * The byte counts reads complete with, boxed once: a {@code StoreCompletion<Integer>} takes an
 * {@link Integer}, and boxing a count above 127 allocates one per read. Whole-block counts up to
 * {@link ShardStore#MAX_WRITE_BYTES} (what gateways read) are made at class load, shared by every
 * shard (an {@code Integer} is immutable); any other count is boxed as usual.
 */
final class BoxedLengths {
  private static final Integer[] WHOLE_BLOCKS =
      new Integer[(ShardStore.MAX_WRITE_BYTES >> Blocks.SHIFT) + 1];

  static {
    for (int i = 0; i < WHOLE_BLOCKS.length; i++) {
      WHOLE_BLOCKS[i] = Integer.valueOf(i << Blocks.SHIFT);
    }
  }

  private BoxedLengths() {}

  /** {@code n} boxed, without allocating when it is a whole number of blocks. */
  static Integer of(int n) {
    if ((n & (Blocks.SIZE - 1)) == 0 && n >= 0 && n <= ShardStore.MAX_WRITE_BYTES) {
      return WHOLE_BLOCKS[n >>> Blocks.SHIFT];
    }
    return n;
  }
}
