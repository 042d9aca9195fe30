package io.tidestore.cli;

import io.tidestore.store.cache.PolicyConfig;
import io.tidestore.store.cache.PolicyKind;
import io.tidestore.store.cache.ReplacementPolicy;
import io.tidestore.store.cache.sim.BlockGenerator;
import io.tidestore.store.cache.sim.TraceFormat;
import io.tidestore.store.cache.sim.TraceReplay;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tidestore cache-sim}: replays a block trace through the extent cache's own replacement
 * policies (no I/O, 4 KiB blocks) and prints hits, accesses and the hit ratio; or, with {@code
 * --generate}, writes a synthetic trace using fio's distributions.
 */
@Command(
    name = "cache-sim",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description = {
      "Replay a block trace through the extent cache's LRU or 2Q policy and",
      "print hits, accesses and the hit ratio; or, with --generate, write a",
      "synthetic trace using fio's random distributions.",
      "Trace formats (detected from the first line): one block number per",
      "line; fio iolog v2 and v3 (read/write offsets become 4 KiB blocks).",
      "",
      "  tidestore cache-sim --policy 2q --capacity-blocks 4096 \\",
      "      --trace zipf.trace",
      "  tidestore cache-sim --generate zipf:0.768780 --blocks 524288 \\",
      "      --accesses 1000000 --seed 1 --output zipf.trace",
      ""
    },
    sortOptions = false)
final class CacheSimCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--policy", paramLabel = "lru|2q", description = "Replacement policy to replay.")
  String policy;

  @Option(
      names = "--kin",
      paramLabel = "FRACTION",
      description = "2Q: Kin = floor(kin x capacity). Default: ${DEFAULT-VALUE}.")
  double kin = PolicyConfig.DEFAULT_KIN;

  @Option(
      names = "--kout",
      paramLabel = "FRACTION",
      description = "2Q: Kout = floor(kout x capacity). Default: ${DEFAULT-VALUE}.")
  double kout = PolicyConfig.DEFAULT_KOUT;

  @Option(
      names = "--seq-detect",
      paramLabel = "on|off",
      description =
          "2Q: SeaStore's rule, a ghost hit continuing a sequential run re-enters A1in."
              + " 'off' gives the textbook 2Q exactly. Default: ${DEFAULT-VALUE} (as the daemon).")
  String seqDetect = "on";

  @Option(
      names = "--capacity-blocks",
      paramLabel = "N",
      description = "Cache capacity in 4 KiB blocks.")
  Long capacityBlocks;

  @Option(names = "--trace", paramLabel = "FILE", description = "Trace to replay.")
  Path trace;

  @Option(
      names = "--generate",
      paramLabel = "DIST",
      description =
          "Write a synthetic trace instead: zipf:THETA | zoned:60/10:30/20:8/30:2/40 |"
              + " normal:DEV | uniform | scan-mix | scan-rescan.")
  String generate;

  @Option(names = "--blocks", paramLabel = "N", description = "--generate: blocks in the range.")
  Long blocks;

  @Option(names = "--accesses", paramLabel = "M", description = "--generate: accesses to write.")
  Long accesses;

  @Option(
      names = "--seed",
      paramLabel = "S",
      description =
          "--generate: random seed; equal seeds give equal traces. Default: ${DEFAULT-VALUE}.")
  long seed = 1;

  @Option(
      names = "--output",
      paramLabel = "FILE",
      description =
          "--generate: file to write, '-' for standard output. Default: ${DEFAULT-VALUE}.")
  String output = "-";

  @Override
  public Integer call() {
    return generate != null ? generate() : replay();
  }

  private int replay() {
    if (blocks != null || accesses != null) {
      throw usage("--blocks and --accesses belong to --generate");
    }
    if (policy == null || capacityBlocks == null || trace == null) {
      throw usage(
          "missing "
              + (policy == null
                  ? "--policy"
                  : capacityBlocks == null ? "--capacity-blocks" : "--trace")
              + " (replay needs --policy, --capacity-blocks and --trace; or use --generate)");
    }
    PolicyConfig config = policyConfig();
    if (capacityBlocks < 1 || capacityBlocks > (1L << 28)) {
      throw usage("--capacity-blocks must be within [1, 268435456]: " + capacityBlocks);
    }
    TraceReplay replay = new TraceReplay(config, capacityBlocks);
    TraceFormat format;
    try {
      format = replay.replay(trace);
    } catch (NoSuchFileException e) {
      return fail("trace file not found: " + trace);
    } catch (IOException e) {
      return fail(e.getMessage());
    }
    PrintWriter out = spec.commandLine().getOut();
    ReplacementPolicy p = replay.policy();
    out.printf(Locale.ROOT, "policy:     %s%n", config.describe());
    out.printf(Locale.ROOT, "capacity:   %d blocks%n", capacityBlocks);
    out.printf(Locale.ROOT, "trace:      %s (%s)%n", trace, formatName(format));
    out.printf(Locale.ROOT, "accesses:   %d%n", replay.accesses());
    out.printf(Locale.ROOT, "hits:       %d%n", replay.hits());
    out.printf(Locale.ROOT, "hit ratio:  %.4f%n", replay.hitRatio());
    if (p.kind() == PolicyKind.TWO_Q) {
      out.printf(
          Locale.ROOT,
          "queues:     A1in %d, Am %d, A1out %d blocks%n",
          p.a1inBlocks(),
          p.amBlocks(),
          p.a1outBlocks());
    }
    out.flush();
    return 0;
  }

  private int generate() {
    if (policy != null || capacityBlocks != null || trace != null) {
      throw usage(
          "--generate only writes a trace; replay it afterwards with --policy, --capacity-blocks"
              + " and --trace");
    }
    if (blocks == null || accesses == null) {
      throw usage("--generate needs --blocks N and --accesses M");
    }
    if (blocks < 1) {
      throw usage("--blocks must be >= 1: " + blocks);
    }
    if (accesses < 0) {
      throw usage("--accesses must be >= 0: " + accesses);
    }
    BlockGenerator g;
    try {
      g = BlockGenerator.of(generate, blocks, seed);
    } catch (IllegalArgumentException e) {
      throw usage("--generate: " + e.getMessage());
    }
    try {
      if (output.equals("-")) {
        PrintWriter out = spec.commandLine().getOut();
        for (long i = 0; i < accesses; i++) {
          out.println(g.next());
        }
        out.flush();
      } else {
        BlockGenerator.write(generate, blocks, accesses, seed, Path.of(output));
        spec.commandLine()
            .getErr()
            .printf(
                Locale.ROOT,
                "wrote %d accesses over %d blocks (%s, seed %d) to %s%n",
                accesses,
                blocks,
                generate,
                seed,
                output);
      }
    } catch (IOException e) {
      return fail("cannot write " + output + ": " + e.getMessage());
    }
    return 0;
  }

  private PolicyConfig policyConfig() {
    PolicyKind kind;
    try {
      kind = PolicyKind.parse(policy);
    } catch (IllegalArgumentException e) {
      throw usage("--policy: " + e.getMessage());
    }
    boolean seq =
        switch (seqDetect.toLowerCase(Locale.ROOT)) {
          case "on" -> true;
          case "off" -> false;
          default -> throw usage("--seq-detect must be 'on' or 'off', not '" + seqDetect + "'");
        };
    try {
      return new PolicyConfig(kind, kin, kout, seq);
    } catch (IllegalArgumentException e) {
      throw usage(e.getMessage());
    }
  }

  private static String formatName(TraceFormat format) {
    return switch (format) {
      case BLOCKS -> "block per line";
      case FIO_IOLOG_V2 -> "fio iolog v2";
      case FIO_IOLOG_V3 -> "fio iolog v3";
    };
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  private int fail(String message) {
    spec.commandLine().getErr().println("tidestore cache-sim: " + message);
    return 1;
  }
}
