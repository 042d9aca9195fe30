package io.tidestore.osd.shard;

/**
 * Which reactor owns each store shard. Shards are fixed at mkfs, reactors are not (DESIGN.md,
 * "Store"): R reactors own S shards, R clamped to S, shard s on reactor {@code s mod R}, so each
 * reactor owns S/R shards (one more for the first S mod R). Stateless.
 */
public final class ShardAssignment {
  private ShardAssignment() {}

  /** The reactor count actually used for {@code shards} shards: at most one reactor per shard. */
  public static int effectiveReactors(int reactors, int shards) {
    if (reactors < 1 || shards < 1) {
      throw new IllegalArgumentException("reactors and shards must be positive");
    }
    return Math.min(reactors, shards);
  }

  /** Element s: the reactor owning shard s. */
  public static int[] roundRobin(int shards, int reactors) {
    int used = effectiveReactors(reactors, shards);
    int[] owners = new int[shards];
    for (int s = 0; s < shards; s++) {
      owners[s] = s % used;
    }
    return owners;
  }
}
