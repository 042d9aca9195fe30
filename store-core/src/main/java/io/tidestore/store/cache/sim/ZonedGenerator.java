package io.tidestore.store.cache.sim;

import java.util.regex.Pattern;

/**
 * fio's {@code zoned:A/S:A/S...} ({@code random_distribution=zoned}): zones laid out in order over
 * the range, zone i covering S_i% of the blocks and receiving A_i% of the accesses, uniform within
 * the zone. As fio requires, access percentages sum to 100; sizes must too (fio would let the
 * remainder go unused, we insist so a typo is caught).
 */
final class ZonedGenerator extends BlockGenerator {
  private static final Pattern ZONES = Pattern.compile(":");
  private static final Pattern PAIR = Pattern.compile("/");

  private final int[] accessCumulative;
  private final long[] zoneStart;
  private final long[] zoneLength;

  ZonedGenerator(long blocks, long seed, String zones) {
    super(blocks, seed);
    String spec = "zoned:" + zones;
    String[] parts = ZONES.split(zones, -1);
    accessCumulative = new int[parts.length];
    zoneStart = new long[parts.length];
    zoneLength = new long[parts.length];
    int accessSum = 0;
    int sizeSum = 0;
    for (int i = 0; i < parts.length; i++) {
      String[] as = PAIR.split(parts[i], -1);
      int a;
      int s;
      try {
        if (as.length != 2) {
          throw new NumberFormatException();
        }
        a = Integer.parseInt(as[0].strip());
        s = Integer.parseInt(as[1].strip());
      } catch (NumberFormatException e) {
        throw bad(spec, "ACCESS%/SIZE% pairs such as 60/10, not '" + parts[i] + "'");
      }
      if (a < 0 || s <= 0 || a > 100 || s > 100) {
        throw bad(spec, "percentages in [0, 100] (sizes > 0), not '" + parts[i] + "'");
      }
      zoneStart[i] = blocks * sizeSum / 100;
      accessSum += a;
      sizeSum += s;
      accessCumulative[i] = accessSum;
      zoneLength[i] = Math.max(1, blocks * sizeSum / 100 - zoneStart[i]);
    }
    if (accessSum != 100 || sizeSum != 100) {
      throw bad(
          spec,
          "access and size percentages each summing to 100 (got "
              + accessSum
              + " and "
              + sizeSum
              + ")");
    }
  }

  @Override
  public long next() {
    int v = random.nextInt(100);
    int z = 0;
    while (v >= accessCumulative[z]) {
      z++;
    }
    return Math.min(blocks - 1, zoneStart[z] + random.nextLong(zoneLength[z]));
  }
}
