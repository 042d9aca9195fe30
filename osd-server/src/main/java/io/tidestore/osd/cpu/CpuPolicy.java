package io.tidestore.osd.cpu;

/** How reactors are placed on CPUs. */
public enum CpuPolicy {
  /**
   * One reactor per physical core, round-robin over NUMA nodes (then sockets) so memory bandwidth
   * and caches are shared evenly, hyperthread siblings only once every core has one; like Crimson's
   * {@code balance_cpu} (src/crimson/osd/main.cc, the {@code osd} and {@code socket} strategies).
   */
  BALANCED,
  /** No pinning: the kernel scheduler places reactor threads. */
  NONE;

  /** Parses {@code balanced|none}, case-insensitive. */
  public static CpuPolicy parse(String text) {
    for (CpuPolicy policy : values()) {
      if (policy.name().equalsIgnoreCase(text.strip())) {
        return policy;
      }
    }
    throw new IllegalArgumentException("unknown CPU policy '" + text + "' (balanced|none)");
  }
}
