package io.tidestore.store.api;

/** How the cleaner picks the segment to reclaim next. */
public enum CleanerPolicy {
  /** The segment with the fewest live blocks: cheapest now. */
  GREEDY,
  /**
   * LFS cost-benefit: maximise (1 - u) * age / (1 + u), where u is the live fraction and age the
   * journal sequences since the segment was last written; cold, mostly-empty segments first.
   */
  COST_BENEFIT
}
