package io.tidestore.store.api;

/** How the cleaner picks the segment to reclaim next. */
public enum CleanerPolicy {
  /** The segment with the fewest live blocks: cheapest now. */
  GREEDY,
  /**
   * LFS cost-benefit: maximise (1 - u) * age / (1 + u), where u is the live fraction and age the
   * journal sequences since the segment was last written; cold, mostly-empty segments first.
   */
  COST_BENEFIT;

  /** Parses the flag {@code greedy} or {@code cost-benefit}. */
  public static CleanerPolicy parse(String text) {
    return switch (text.toLowerCase(java.util.Locale.ROOT).replace('_', '-')) {
      case "greedy" -> GREEDY;
      case "cost-benefit", "costbenefit" -> COST_BENEFIT;
      default ->
          throw new IllegalArgumentException("must be greedy or cost-benefit, got '" + text + "'");
    };
  }

  /** The flag's spelling. */
  public String label() {
    return this == GREEDY ? "greedy" : "cost-benefit";
  }
}
