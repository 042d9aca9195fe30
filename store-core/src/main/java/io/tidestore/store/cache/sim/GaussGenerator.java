package io.tidestore.store.cache.sim;

/**
 * fio's {@code normal:DEV} (lib/gauss.c): the mean of 12 uniform draws over {@code [0, n]} (central
 * limit theorem), plus a uniform deviation of width stddev = ceil(n x DEV / 100) (capped at n / 2,
 * halved until it stays in range), scattered with {@code __hash_u64} mod n. fio's centre option is
 * not offered (centre -1: rand_off = 0).
 */
final class GaussGenerator extends BlockGenerator {
  private static final int GAUSS_ITERS = 12;

  private final long stddev;

  GaussGenerator(long blocks, long seed, double dev) {
    super(blocks, seed);
    if (!(dev >= 0.0 && dev <= 100.0)) {
      throw bad("normal:" + dev, "normal:DEV with DEV a percentage in [0, 100], e.g. normal:20");
    }
    long sd = 0;
    if (dev != 0.0) {
      sd = (long) Math.ceil(blocks * dev / 100.0);
      if (sd > blocks / 2) {
        sd = blocks / 2;
      }
    }
    this.stddev = sd;
  }

  private long dev() {
    if (stddev == 0) {
      return 0;
    }
    // fio: vr = stddev * (r / (FRAND32_MAX + 1.0)); return vr - stddev / 2 (int arithmetic).
    long vr = (long) (stddev * (rand32() / (FRAND32_MAX + 1.0)));
    return vr - stddev / 2;
  }

  @Override
  public long next() {
    long sum = 0;
    for (int i = 0; i < GAUSS_ITERS; i++) {
      sum += rand32() % (blocks + 1);
    }
    sum = (sum + GAUSS_ITERS - 1) / GAUSS_ITERS;
    if (stddev != 0) {
      long d = dev();
      // fio's loop compares as unsigned: a negative d that underflows is halved too.
      while (Long.compareUnsigned(d + sum, blocks) >= 0) {
        d /= 2;
      }
      sum += d;
    }
    return Long.remainderUnsigned(sum * GOLDEN_RATIO_64, blocks);
  }
}
