package io.tidestore.store.cache.sim;

/**
 * fio's {@code zipf:THETA} (lib/zipf.c, after Gray et al., "Quickly generating billion-record
 * synthetic databases", SIGMOD 1994): zeta(n) summed over at most 10M ranks (fio's ZIPF_MAX_GEN), a
 * rank drawn by the closed-form inverse, then scattered over the range with {@code __hash_u64(rank)
 * + rand_off mod n} so hot blocks are not adjacent.
 */
final class ZipfGenerator extends BlockGenerator {
  private static final long ZIPF_MAX_GEN = 10_000_000L;

  private final double theta;
  private final double zetan;
  private final double zeta2;
  private final double alpha;
  private final double eta;
  private final long randOff;

  ZipfGenerator(long blocks, long seed, double theta) {
    super(blocks, seed);
    // fio rejects theta == 1 (alpha divides by 1 - theta) and theta <= 0.
    if (!(theta > 0.0) || theta == 1.0 || theta > 100) {
      throw bad("zipf:" + theta, "zipf:THETA with THETA > 0 and != 1 (fio's rule), e.g. 0.768780");
    }
    this.theta = theta;
    this.randOff = rand32(); // fio: zs->rand_off = __rand(&zs->rand)
    this.zeta2 = Math.pow(1.0, theta) + Math.pow(0.5, theta);
    double z = 0;
    long toGen = Math.min(blocks, ZIPF_MAX_GEN);
    for (long i = 0; i < toGen; i++) {
      z += Math.pow(1.0 / (double) (i + 1), theta);
    }
    this.zetan = z;
    this.alpha = 1.0 / (1.0 - theta);
    this.eta = (1.0 - Math.pow(2.0 / blocks, 1.0 - theta)) / (1.0 - zeta2 / zetan);
  }

  @Override
  public long next() {
    double randUni = rand32() / FRAND32_MAX;
    double randZ = randUni * zetan;
    long val;
    if (randZ < 1.0) {
      val = 1;
    } else if (randZ < 1.0 + Math.pow(0.5, theta)) {
      val = 2;
    } else {
      val = 1 + (long) (blocks * Math.pow(eta * randUni - eta + 1.0, alpha));
    }
    val--;
    long hashed = val * GOLDEN_RATIO_64;
    return Long.remainderUnsigned(hashed + randOff, blocks);
  }
}
