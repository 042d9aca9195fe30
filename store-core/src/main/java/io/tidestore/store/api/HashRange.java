package io.tidestore.store.api;

/**
 * A range {@code [start, end)} of the hash order ({@link PlacementHash}): the objects whose
 * <em>reversed</em> placement hash {@code r} has {@code start <= r < end}, as unsigned 32-bit
 * values widened to long ({@code end} may be 2^32). {@link #ofPg} gives a placement group's range.
 *
 * <p>Why a range and not a (mask, value) filter: a PG is exactly one range of this order (Ceph's
 * {@code pg_t::get_hobj_start/get_hobj_end}), and a range is what else the cluster needs too:
 * backfill and deep scrub work through a PG in chunks, each a range of the same order bounded by a
 * cursor, a PG split halves a range, and a later ordered index answers a range with one seek where
 * a filter would need converting into a range anyway. Immutable.
 *
 * @param start the first reversed hash in the range
 * @param end one past the last reversed hash in the range
 */
public record HashRange(long start, long end) {
  /** Number of hash values: reversed hashes are {@code 0 .. SPACE - 1}. */
  public static final long SPACE = 1L << 32;

  /** Every hash: the one PG of a pool with pg_num 1. */
  public static final HashRange ALL = new HashRange(0, SPACE);

  /**
   * @throws IllegalArgumentException unless {@code 0 <= start <= end <= 2^32}
   */
  public HashRange {
    if (start < 0 || start > end || end > SPACE) {
      throw new IllegalArgumentException(
          "hash range [" + start + ", " + end + ") is not within [0, 2^32) in order");
    }
  }

  /**
   * The range of PG {@code seed} of a pool of {@code pgNum} PGs: the objects whose hash {@code
   * ceph_stable_mod} folds to {@code seed}. Those are the hashes whose low {@link #splitBits} bits
   * equal the seed, which reversed are the hashes whose top bits are the seed reversed.
   *
   * @param pgNum the pool's pg_num, at least 1
   * @param seed the PG's number in the pool, {@code 0 <= seed < pgNum}
   * @throws IllegalArgumentException for a pg_num below 1 or a seed outside the pool
   */
  public static HashRange ofPg(int pgNum, int seed) {
    int bits = splitBits(pgNum, seed);
    long first = PlacementHash.reversed(seed);
    return new HashRange(first, first + (1L << (32 - bits)));
  }

  /**
   * How many low bits of the hash decide whether an object is in PG {@code seed} (Ceph's {@code
   * pg_t::get_split_bits}): with {@code 2^(p-1) <= pgNum < 2^p}, the seeds below {@code pgNum -
   * 2^(p-1)} modulo {@code 2^(p-1)} have been split and use {@code p} bits, the others {@code p -
   * 1}; a power of two uses {@code log2(pgNum)} bits for every seed.
   */
  public static int splitBits(int pgNum, int seed) {
    if (pgNum < 1) {
      throw new IllegalArgumentException("pg_num " + pgNum + " is below 1");
    }
    if (seed < 0 || seed >= pgNum) {
      throw new IllegalArgumentException("PG seed " + seed + " is not in [0, " + pgNum + ")");
    }
    if (pgNum == 1) {
      return 0;
    }
    int p = 32 - Integer.numberOfLeadingZeros(pgNum);
    int half = 1 << (p - 1);
    return (seed % half) < (pgNum % half) ? p : p - 1;
  }

  /** Whether an object of placement hash {@code hash} is in this range. */
  public boolean contains(int hash) {
    long r = PlacementHash.reversed(hash);
    return r >= start && r < end;
  }

  /** Whether the range holds no hash. */
  public boolean isEmpty() {
    return start == end;
  }
}
