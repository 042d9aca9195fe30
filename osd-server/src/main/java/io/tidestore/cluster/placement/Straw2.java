package io.tidestore.cluster.placement;

/**
 * CRUSH's straw2 draw, in floating point: every candidate draws {@code ln(u) / weight} with {@code
 * u} in (0, 1] from a hash of (pool, PG seed, OSD id); the largest draw wins. A candidate's chance
 * is its share of the total weight, and changing one candidate's weight moves only the PGs that it
 * wins or stops winning: the others keep their winner.
 */
final class Straw2 {
  /** 2^-53: maps the top 53 bits of a hash onto doubles. */
  private static final double UNIT = 0x1.0p-53;

  private Straw2() {}

  /** The draw of one OSD for one PG; OSDs of weight 0 must not draw (they never win). */
  static double draw(int pool, int seed, int osd, double weight) {
    long h = hash(pool, seed, osd);
    double u = ((h >>> 11) + 1) * UNIT; // (0, 1]
    return Math.log(u) / weight;
  }

  /**
   * A 64-bit hash of the three inputs, each folded in through SplitMix64's finalizer (Stafford's
   * Mix13); fixed forever, as the object hash is.
   */
  static long hash(int pool, int seed, int osd) {
    long h = mix(0x9E3779B97F4A7C15L ^ Integer.toUnsignedLong(pool));
    h = mix(h ^ Integer.toUnsignedLong(seed));
    return mix(h ^ Integer.toUnsignedLong(osd));
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
