package io.tidestore.store.cache.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BlockGeneratorTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(
      strings = {
        "zipf:0.768780",
        "zoned:60/10:30/20:8/30:2/40",
        "normal:20",
        "uniform",
        "scan-mix"
      })
  void deterministicPerSeedAndInRange(String spec) {
    long[] a = BlockGenerator.generate(spec, 10_000, 50_000, 42);
    long[] b = BlockGenerator.generate(spec, 10_000, 50_000, 42);
    long[] c = BlockGenerator.generate(spec, 10_000, 50_000, 43);
    assertArrayEquals(a, b);
    assertFalse(Arrays.equals(a, c), "another seed, another stream");
    for (long x : a) {
      assertTrue(x >= 0 && x < 10_000, spec + " produced " + x);
    }
  }

  @Test
  void writeProducesAReadableTraceOfTheSameStream() throws Exception {
    Path f = dir.resolve("z.trace");
    BlockGenerator.write("zipf:0.9", 1000, 500, 7, f);
    List<Long> read = new ArrayList<>();
    assertEquals(TraceFormat.BLOCKS, TraceReader.read(f, read::add));
    assertArrayEquals(
        BlockGenerator.generate("zipf:0.9", 1000, 500, 7),
        read.stream().mapToLong(Long::longValue).toArray());
    assertEquals(500, Files.readAllLines(f).size());
  }

  @Test
  void zonedHonoursAccessAndSizeShares() {
    long[] a = BlockGenerator.generate("zoned:60/10:30/20:8/30:2/40", 10_000, 200_000, 1);
    int[] zone = new int[4];
    for (long x : a) {
      zone[x < 1000 ? 0 : x < 3000 ? 1 : x < 6000 ? 2 : 3]++;
    }
    assertEquals(0.60, zone[0] / 200_000.0, 0.01);
    assertEquals(0.30, zone[1] / 200_000.0, 0.01);
    assertEquals(0.08, zone[2] / 200_000.0, 0.01);
    assertEquals(0.02, zone[3] / 200_000.0, 0.01);
  }

  @Test
  void zipfIsSkewed() {
    long[] a = BlockGenerator.generate("zipf:1.2", 100_000, 100_000, 5);
    int[] counts = new int[100_000];
    for (long x : a) {
      counts[(int) x]++;
    }
    Arrays.sort(counts);
    long top100 = 0;
    for (int i = counts.length - 100; i < counts.length; i++) {
      top100 += counts[i];
    }
    assertTrue(top100 > 50_000, "the top 0.1% of blocks take most accesses: " + top100);
  }

  @Test
  void scanMixAlternatesHotPhasesAndScans() {
    long[] a = BlockGenerator.generate("scan-mix", 1000, 800, 1);
    for (int i = 0; i < 300; i++) {
      assertTrue(a[i] < 100, "hot phase");
    }
    for (int i = 300; i < 400; i++) {
      assertEquals(100 + (i - 300), a[i], "sequential scan");
    }
    assertTrue(a[400] < 100);
    assertEquals(200, a[700], "the next scan resumes where the last stopped");
  }

  @Test
  void scanRescanReadsEachScanTwice() {
    long[] a = BlockGenerator.generate("scan-rescan", 1000, 1000, 1);
    for (int i = 300; i < 400; i++) {
      assertEquals(100 + (i - 300), a[i], "first read of the scan");
      assertEquals(a[i], a[i + 100], "re-read");
    }
    assertTrue(a[500] < 100, "back to the hot set");
    assertEquals(200, a[800], "the next scan follows the last one");
  }

  @Test
  void badSpecsAreClearErrors() {
    for (String spec :
        new String[] {
          "zipf",
          "zipf:x",
          "zipf:1",
          "normal:-1",
          "zoned:60/10:30/20",
          "zoned:60-10",
          "pareto:0.5",
          "uniform:3"
        }) {
      var e =
          assertThrows(
              IllegalArgumentException.class, () -> BlockGenerator.of(spec, 1000, 1), spec);
      assertTrue(e.getMessage().startsWith("bad distribution"), e.getMessage());
    }
    assertThrows(IllegalArgumentException.class, () -> BlockGenerator.of("uniform", 0, 1));
  }
}
