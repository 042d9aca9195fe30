package io.tidestore.store.cache.sim;

/** fio's default {@code random_distribution=random}: every block equally likely. */
final class UniformGenerator extends BlockGenerator {
  UniformGenerator(long blocks, long seed) {
    super(blocks, seed);
  }

  @Override
  public long next() {
    return random.nextLong(blocks);
  }
}
