package io.tidestore.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.bench.job.FioJob;
import io.tidestore.bench.result.FioJson;
import io.tidestore.bench.result.PointMetrics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The native engine's JSON reads back through the sweep's fio parser with the same figures. */
class FioLikeJsonTest {
  @TempDir Path dir;

  @Test
  void sweepsParserReadsTheNativeEnginesJson() throws Exception {
    FioJob job = BenchJobs.resolve(null, Map.of("rw", "randrw", "bs", "4k")).getFirst();
    Histogram reads = new Histogram(3_600_000_000_000L, 3);
    Histogram writes = new Histogram(3_600_000_000_000L, 3);
    for (int i = 1; i <= 1000; i++) {
      reads.recordValue(i * 1000L); // 1..1000 us, mean 500.5 us
    }
    for (int i = 0; i < 500; i++) {
      writes.recordValue(2_000_000L); // 2 ms
    }
    NativeBench.Outcome outcome =
        new NativeBench.Outcome(
            List.of(new NativeBench.JobResult(job, "img0", reads, writes)),
            2.0,
            30,
            12,
            1_000,
            3_000);
    Path file = dir.resolve("point.json");
    Files.writeString(file, FioLikeJson.render(outcome, "tidestore-bench test").toPrettyString());

    PointMetrics m = FioJson.read(file);
    assertEquals(750, m.iops(), 1e-9); // (1000 + 500) I/Os over 2 s
    assertEquals(1500, m.totalIos());
    assertEquals(1500 * 4096 / 2.0 / 1048576, m.bandwidthMiBs(), 0.01);
    // Pooled mean: (1000 x 0.5005 ms + 500 x 2 ms) / 1500, within HdrHistogram's precision.
    assertEquals((1000 * 0.5005 + 500 * 2.0) / 1500, m.clatMeanMs(), 0.002);
    assertEquals(2.0, m.clatP99Ms(), 0.002); // the slower direction's
    assertEquals(30, m.usrCpu(), 1e-9);
    assertEquals(12, m.sysCpu(), 1e-9);
    assertEquals(2000, m.runtimeMs());
    long[] window = FioJson.measuredWindowEpochMs(file).orElseThrow();
    assertEquals(1_000, window[0]);
    assertEquals(3_000, window[1]);
    assertTrue(
        FioLikeJson.summary(outcome).contains("read 500 IOPS"), FioLikeJson.summary(outcome));
  }
}
