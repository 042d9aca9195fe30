package io.tidestore.bench.load;

import io.tidestore.bench.job.FioJob;
import io.tidestore.bench.job.RandomDistribution;
import io.tidestore.store.cache.sim.BlockGenerator;

/**
 * The offsets one job visits, block-aligned as fio aligns them ({@code blockalign = bs}): in order
 * and wrapping for sequential patterns, drawn from the cache simulator's generators (fio's
 * definitions of zipf, zoned, normal and uniform) for random ones. Not thread-safe.
 */
abstract class OffsetStream {
  /** The next byte offset, a multiple of the block size within {@code [0, span)}. */
  abstract long next();

  /** The stream of {@code job} over the first {@code span} bytes, deterministic for a seed. */
  static OffsetStream of(FioJob job, long span, long seed) {
    long blockSize = job.blockSize();
    long blocks = span / blockSize;
    if (blocks < 1) {
      throw new IllegalArgumentException(
          "job " + job.name() + ": size " + span + " is smaller than bs=" + blockSize);
    }
    if (!job.rw().random()) {
      return new Sequential(blockSize, blocks);
    }
    BlockGenerator generator = BlockGenerator.of(generatorSpec(job.distribution()), blocks, seed);
    return new OffsetStream() {
      @Override
      long next() {
        return generator.next() * blockSize;
      }
    };
  }

  /** fio's names, except that the simulator calls fio's {@code random} {@code uniform}. */
  static String generatorSpec(RandomDistribution distribution) {
    return distribution.kind() == RandomDistribution.Kind.RANDOM ? "uniform" : distribution.toFio();
  }

  private static final class Sequential extends OffsetStream {
    private final long blockSize;
    private final long blocks;
    private long block;

    Sequential(long blockSize, long blocks) {
      this.blockSize = blockSize;
      this.blocks = blocks;
    }

    @Override
    long next() {
      long offset = block * blockSize;
      block = block + 1 == blocks ? 0 : block + 1;
      return offset;
    }
  }
}
