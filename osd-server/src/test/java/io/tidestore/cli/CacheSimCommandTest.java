package io.tidestore.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.cache.PolicyConfig;
import io.tidestore.store.cache.sim.BlockGenerator;
import io.tidestore.store.cache.sim.TraceReplay;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class CacheSimCommandTest {
  @TempDir Path dir;

  private static CliRun run(String... args) {
    return CliRun.of(args);
  }

  @Test
  void replaysABlockTraceAndPrintsHitsAccessesAndRatio() throws Exception {
    Path t = dir.resolve("t.trace");
    Files.writeString(t, "1\n2\n1\n3\n1\n2\n");
    CliRun r =
        run("cache-sim", "--policy", "lru", "--capacity-blocks", "2", "--trace", t.toString());
    assertEquals(0, r.exit(), r.err());
    // LRU(2): 1 m, 2 m, 1 h, 3 m (evicts 2), 1 h, 2 m
    assertTrue(r.out().contains("accesses:   6"), r.out());
    assertTrue(r.out().contains("hits:       2"), r.out());
    assertTrue(r.out().contains("hit ratio:  0.3333"), r.out());
    assertTrue(r.out().contains("(block per line)"), r.out());
  }

  @Test
  void twoQWithSeqDetectOffMatchesTheLibraryReplay() throws Exception {
    Path t = dir.resolve("zipf.trace");
    BlockGenerator.write("zipf:0.768780", 20_000, 50_000, 3, t);
    CliRun r =
        run(
            "cache-sim",
            "--policy",
            "2q",
            "--kin",
            "0.25",
            "--kout",
            "0.5",
            "--seq-detect",
            "off",
            "--capacity-blocks",
            "2000",
            "--trace",
            t.toString());
    assertEquals(0, r.exit(), r.err());
    TraceReplay expected = new TraceReplay(PolicyConfig.twoQ(false), 2000);
    expected.replay(t);
    assertTrue(r.out().contains("hits:       " + expected.hits() + "\n"), r.out());
    assertTrue(r.out().contains("2q(kin=0.25,kout=0.5,seq=off)"), r.out());
    assertTrue(r.out().contains("queues:     A1in "), r.out());
  }

  @Test
  void readsFioIologs() throws Exception {
    Path t = dir.resolve("fio.log");
    Files.writeString(
        t, "fio version 2 iolog\n/f add\n/f open\n/f read 0 8192\n/f read 4096 4096\n/f close\n");
    CliRun r =
        run("cache-sim", "--policy", "2q", "--capacity-blocks", "8", "--trace", t.toString());
    assertEquals(0, r.exit(), r.err());
    assertTrue(r.out().contains("accesses:   3"), r.out());
    assertTrue(r.out().contains("hits:       1"), r.out());
    assertTrue(r.out().contains("(fio iolog v2)"), r.out());
  }

  @Test
  void badTraceLineIsExitOneWithTheLineNumber() throws Exception {
    Path t = dir.resolve("bad.trace");
    Files.writeString(t, "1\n2\nbanana\n");
    CliRun r =
        run("cache-sim", "--policy", "lru", "--capacity-blocks", "2", "--trace", t.toString());
    assertEquals(1, r.exit());
    assertTrue(r.err().contains("bad.trace:3: not a block number: 'banana'"), r.err());
  }

  @Test
  void missingTraceIsExitOne() {
    CliRun r =
        run(
            "cache-sim",
            "--policy",
            "lru",
            "--capacity-blocks",
            "2",
            "--trace",
            dir.resolve("none").toString());
    assertEquals(1, r.exit());
    assertTrue(r.err().contains("trace file not found"), r.err());
  }

  @Test
  void badOptionsAreUsageErrors() {
    CliRun noTrace = run("cache-sim", "--policy", "lru", "--capacity-blocks", "2");
    assertEquals(CommandLine.ExitCode.USAGE, noTrace.exit());
    assertTrue(noTrace.err().contains("missing --trace"), noTrace.err());
    CliRun badPolicy =
        run("cache-sim", "--policy", "arc", "--capacity-blocks", "2", "--trace", "x");
    assertEquals(CommandLine.ExitCode.USAGE, badPolicy.exit());
    assertTrue(badPolicy.err().contains("expected 'lru' or '2q'"), badPolicy.err());
    CliRun badSeq =
        run(
            "cache-sim",
            "--policy",
            "2q",
            "--seq-detect",
            "maybe",
            "--capacity-blocks",
            "2",
            "--trace",
            "x");
    assertEquals(CommandLine.ExitCode.USAGE, badSeq.exit());
    CliRun badKin =
        run(
            "cache-sim",
            "--policy",
            "2q",
            "--kin",
            "1.5",
            "--capacity-blocks",
            "2",
            "--trace",
            "x");
    assertEquals(CommandLine.ExitCode.USAGE, badKin.exit());
    assertTrue(badKin.err().contains("kin must be within [0, 1]"), badKin.err());
    CliRun zero = run("cache-sim", "--policy", "lru", "--capacity-blocks", "0", "--trace", "x");
    assertEquals(CommandLine.ExitCode.USAGE, zero.exit());
    CliRun badDist =
        run("cache-sim", "--generate", "zipf:abc", "--blocks", "10", "--accesses", "10");
    assertEquals(CommandLine.ExitCode.USAGE, badDist.exit());
    assertTrue(badDist.err().contains("bad distribution 'zipf:abc'"), badDist.err());
    CliRun mixed =
        run(
            "cache-sim",
            "--generate",
            "uniform",
            "--blocks",
            "10",
            "--accesses",
            "1",
            "--policy",
            "lru");
    assertEquals(CommandLine.ExitCode.USAGE, mixed.exit());
  }

  @Test
  void generateIsDeterministicPerSeed() throws Exception {
    Path a = dir.resolve("a.trace");
    Path b = dir.resolve("b.trace");
    for (Path p : new Path[] {a, b}) {
      CliRun r =
          run(
              "cache-sim",
              "--generate",
              "zoned:60/10:30/20:8/30:2/40",
              "--blocks",
              "1000",
              "--accesses",
              "5000",
              "--seed",
              "9",
              "--output",
              p.toString());
      assertEquals(0, r.exit(), r.err());
    }
    assertEquals(Files.readString(a), Files.readString(b));
    assertEquals(5000, Files.readAllLines(a).size());
    CliRun stdout =
        run(
            "cache-sim",
            "--generate",
            "scan-mix",
            "--blocks",
            "100",
            "--accesses",
            "4",
            "--seed",
            "9");
    assertEquals(0, stdout.exit());
    assertEquals(4, stdout.out().strip().split("\n").length);
  }

  @Test
  void helpAndVersionWork() {
    CliRun help = run("cache-sim", "--help");
    assertEquals(0, help.exit());
    assertTrue(help.out().contains("--capacity-blocks"), help.out());
    CliRun version = run("cache-sim", "--version");
    assertEquals(0, version.exit());
    assertTrue(version.out().startsWith("tidestore "), version.out());
  }
}
