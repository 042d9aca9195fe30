package io.tidestore.store.cache;

/**
 * A replacement policy and its tuning: immutable, safe to pass between threads (the runtime switch
 * hands one from an admin thread to the shard's owner thread).
 *
 * @param kind LRU or 2Q
 * @param kin 2Q's A1in share of the capacity, Kin = floor(kin x capacity); the paper's 0.25
 * @param kout 2Q's A1out (ghost) share, Kout = floor(kout x capacity); the paper's 0.5
 * @param sequentialContinuation SeaStore's rule: a ghost hit that continues a sequential run
 *     re-enters A1in rather than Am (ignored by LRU); off gives the textbook algorithm exactly
 */
public record PolicyConfig(
    PolicyKind kind, double kin, double kout, boolean sequentialContinuation) {

  /** Johnson and Shasha's recommended Kin (25% of the buffer) and Kout (50%). */
  public static final double DEFAULT_KIN = 0.25;

  public static final double DEFAULT_KOUT = 0.5;

  public PolicyConfig {
    if (kind == null) {
      throw new IllegalArgumentException("policy kind is required");
    }
    if (!(kin >= 0.0 && kin <= 1.0)) {
      throw new IllegalArgumentException("kin must be within [0, 1]: " + kin);
    }
    if (!(kout >= 0.0 && kout <= 4.0)) {
      throw new IllegalArgumentException("kout must be within [0, 4]: " + kout);
    }
  }

  /** Plain LRU. */
  public static PolicyConfig lru() {
    return new PolicyConfig(PolicyKind.LRU, DEFAULT_KIN, DEFAULT_KOUT, false);
  }

  /** 2Q with the paper's Kin/Kout and the given sequential-continuation rule. */
  public static PolicyConfig twoQ(boolean sequentialContinuation) {
    return new PolicyConfig(PolicyKind.TWO_Q, DEFAULT_KIN, DEFAULT_KOUT, sequentialContinuation);
  }

  /** The daemon's default: 2Q with SeaStore's sequential-continuation rule on. */
  public static PolicyConfig daemonDefault() {
    return twoQ(true);
  }

  /** A fresh policy of this kind over {@code capacityBlocks} 4 KiB blocks. */
  public ReplacementPolicy create(long capacityBlocks, EvictionHandler handler) {
    return switch (kind) {
      case LRU -> new LruPolicy(capacityBlocks, handler);
      case TWO_Q -> new TwoQueuePolicy(capacityBlocks, kin, kout, sequentialContinuation, handler);
    };
  }

  /** One line for logs and the CLI, e.g. {@code 2q(kin=0.25,kout=0.5,seq=on)}. */
  public String describe() {
    return kind == PolicyKind.LRU
        ? "lru"
        : "2q(kin="
            + kin
            + ",kout="
            + kout
            + ",seq="
            + (sequentialContinuation ? "on" : "off")
            + ")";
  }
}
