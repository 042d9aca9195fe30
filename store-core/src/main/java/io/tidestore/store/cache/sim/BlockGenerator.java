package io.tidestore.store.cache.sim;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * A synthetic block-access stream over {@code [0, blocks)}, deterministic for a seed. The
 * distributions follow fio's definitions ({@code random_distribution=}): {@code zipf:THETA}
 * (lib/zipf.c), {@code normal:DEV} (lib/gauss.c, DEV in percent of the range), {@code
 * zoned:A/S:A/S...} (access% / size% per zone, in order), {@code uniform}; plus {@code scan-mix}
 * and {@code scan-rescan}, ours, a hot set interleaved with long sequential scans (the workload 2Q
 * was designed for), the second reading each scan twice.
 *
 * <p>fio's Tausworthe generator is replaced by {@link SplittableRandom} (32-bit draws where fio
 * draws 32 bits), so streams follow fio's distributions but are not bit-identical to fio's.
 *
 * <p>Not thread-safe; one generator per stream.
 */
public abstract class BlockGenerator {
  /** fio's FRAND32_MAX: the largest 32-bit draw. */
  static final double FRAND32_MAX = 4294967295.0;

  /** fio's hash.h GOLDEN_RATIO_64, used by __hash_u64 to scatter zipf/normal ranks. */
  static final long GOLDEN_RATIO_64 = 0x61C8864680B583EBL;

  final long blocks;
  final SplittableRandom random;

  BlockGenerator(long blocks, long seed) {
    if (blocks < 1) {
      throw new IllegalArgumentException("--blocks must be >= 1: " + blocks);
    }
    this.blocks = blocks;
    this.random = new SplittableRandom(seed);
  }

  /** The next block number in {@code [0, blocks)}. */
  public abstract long next();

  /** A 32-bit unsigned draw, as fio's __rand() on a 32-bit state. */
  final long rand32() {
    return Integer.toUnsignedLong(random.nextInt());
  }

  /**
   * Parses a distribution: {@code zipf:THETA}, {@code normal:DEV}, {@code zoned:A/S:...}, {@code
   * uniform}, {@code scan-mix}, {@code scan-rescan}. Errors say what was expected.
   */
  public static BlockGenerator of(String spec, long blocks, long seed) {
    String s = spec.strip();
    int colon = s.indexOf(':');
    String name = colon < 0 ? s : s.substring(0, colon);
    String arg = colon < 0 ? null : s.substring(colon + 1);
    return switch (name) {
      case "zipf" -> new ZipfGenerator(blocks, seed, number(spec, arg, "zipf:THETA"));
      case "normal" -> new GaussGenerator(blocks, seed, number(spec, arg, "normal:DEV"));
      case "zoned" -> {
        if (arg == null) {
          throw bad(spec, "zoned:ACCESS%/SIZE%:... e.g. zoned:60/10:30/20:8/30:2/40");
        }
        yield new ZonedGenerator(blocks, seed, arg);
      }
      case "uniform" -> {
        noArg(spec, arg);
        yield new UniformGenerator(blocks, seed);
      }
      case "scan-mix" -> {
        noArg(spec, arg);
        yield new ScanMixGenerator(blocks, seed, false);
      }
      case "scan-rescan" -> {
        noArg(spec, arg);
        yield new ScanMixGenerator(blocks, seed, true);
      }
      default ->
          throw bad(
              spec, "zipf:THETA, zoned:A/S:..., normal:DEV, uniform, scan-mix or scan-rescan");
    };
  }

  /**
   * Writes {@code accesses} block numbers, one per line (the {@link TraceFormat#BLOCKS} format).
   */
  public static void write(String spec, long blocks, long accesses, long seed, Path out)
      throws IOException {
    if (accesses < 0) {
      throw new IllegalArgumentException("--accesses must be >= 0: " + accesses);
    }
    BlockGenerator g = of(spec, blocks, seed);
    try (BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.US_ASCII)) {
      for (long i = 0; i < accesses; i++) {
        w.write(Long.toString(g.next()));
        w.write('\n');
      }
    }
  }

  /** {@code accesses} block numbers in memory (for the hit-ratio harness). */
  public static long[] generate(String spec, long blocks, int accesses, long seed) {
    BlockGenerator g = of(spec, blocks, seed);
    long[] out = new long[accesses];
    for (int i = 0; i < accesses; i++) {
      out[i] = g.next();
    }
    return out;
  }

  private static double number(String spec, String arg, String expected) {
    if (arg == null || arg.isEmpty()) {
      throw bad(spec, expected);
    }
    try {
      return Double.parseDouble(arg);
    } catch (NumberFormatException e) {
      throw bad(spec, expected);
    }
  }

  private static void noArg(String spec, String arg) {
    if (arg != null) {
      throw bad(spec, spec.substring(0, spec.indexOf(':')) + " (no parameter)");
    }
  }

  static IllegalArgumentException bad(String spec, String expected) {
    return new IllegalArgumentException("bad distribution '" + spec + "': expected " + expected);
  }
}
