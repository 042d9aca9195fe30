package io.tidestore.cluster.placement;

/**
 * A placement group's id as Ceph writes it: {@code POOL.HEXSEED}, the pool id in decimal and the
 * seed in lowercase hex ({@code 1.2f}). The same form carries a raw PG (the seed is then the
 * object's whole 32-bit hash, before it is folded to the pool's pg_num).
 *
 * @param pool the pool id
 * @param seed the PG's number in the pool, unsigned 32 bits
 */
public record PgId(int pool, int seed) {

  /** The longest hex seed: 32 bits. */
  private static final int MAX_SEED_DIGITS = 8;

  /** The longest decimal pool id that fits an int. */
  private static final int MAX_POOL_DIGITS = 10;

  public PgId {
    if (pool < 0) {
      throw new IllegalArgumentException("pool id " + pool + " is negative");
    }
  }

  /**
   * Parses {@code POOL.HEXSEED} ({@code 1.2f}, any case of hex digits).
   *
   * @throws IllegalArgumentException with what is wrong, for anything else
   */
  public static PgId parse(String text) {
    int dot = text.indexOf('.');
    if (dot < 0) {
      throw bad(text, "it has no '.'");
    }
    String pool = text.substring(0, dot);
    String seed = text.substring(dot + 1);
    if (pool.isEmpty() || pool.length() > MAX_POOL_DIGITS || !allMatch(pool, 10)) {
      throw bad(text, "the pool id must be a decimal number");
    }
    if (seed.isEmpty() || seed.length() > MAX_SEED_DIGITS || !allMatch(seed, 16)) {
      throw bad(text, "the seed must be 1 to 8 hex digits");
    }
    long poolId = Long.parseLong(pool);
    if (poolId > Integer.MAX_VALUE) {
      throw bad(text, "the pool id is too large");
    }
    return new PgId((int) poolId, Integer.parseUnsignedInt(seed, 16));
  }

  /** ASCII digits only ({@link Character#digit} would also take other scripts' digits). */
  private static boolean allMatch(String digits, int radix) {
    for (int i = 0; i < digits.length(); i++) {
      char c = digits.charAt(i);
      boolean decimal = c >= '0' && c <= '9';
      boolean hex = (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
      if (!decimal && !(radix == 16 && hex)) {
        return false;
      }
    }
    return true;
  }

  private static IllegalArgumentException bad(String text, String why) {
    return new IllegalArgumentException(
        "'" + text + "' is not a PG id (POOL.HEXSEED, e.g. 1.2f): " + why);
  }

  @Override
  public String toString() {
    return pool + "." + Integer.toHexString(seed);
  }
}
