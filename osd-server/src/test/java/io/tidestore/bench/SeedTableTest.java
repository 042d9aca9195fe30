package io.tidestore.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.bench.report.SeedTable;
import io.tidestore.bench.result.PointMetrics;
import java.util.List;
import org.junit.jupiter.api.Test;

class SeedTableTest {
  private static PointMetrics point(double iops, double bw, double clatMs) {
    return new PointMetrics(iops, bw, 1000, clatMs, 0.5, clatMs, clatMs * 2, 1.5, 2.5, 10_000);
  }

  @Test
  void smallBlocksShowIopsAndSlowPointsAreHidden() {
    String table =
        SeedTable.render(
            4096,
            List.of(
                new SeedTable.Row(1, point(12345.678, 48.2, 0.08), 95.5, 410.25),
                new SeedTable.Row(64, point(900, 3.5, 1500), 99, 420)),
            SeedTable.DEFAULT_MAX_LATENCY_MS);
    String[] lines = table.split("\n");
    assertEquals(
        "| iodepth | iops | total_ios | clat_ms | clat_stdev | usr_cpu | sys_cpu | OSD_cpu |"
            + " OSD_mem | p50_ms | p99_ms |",
        lines[0]);
    assertEquals(
        "| 1 | 12345.68 | 1000 | 0.08 | 0.50 | 1.50 | 2.50 | 95.50 | 410.25 | 0.080 | 0.160 |",
        lines[2]);
    assertEquals(3, table.lines().filter(l -> l.startsWith("|")).count());
    assertTrue(table.contains("1 point with mean latency above 1000.00 ms not shown."), table);
  }

  @Test
  void largeBlocksShowBandwidth() {
    String table =
        SeedTable.render(
            65536, List.of(new SeedTable.Row(16, point(20000, 1250, 0.8), 150, 500)), 1000);
    assertTrue(table.startsWith("| iodepth | bw |"), table);
    assertTrue(table.contains("| 16 | 1250.00 |"), table);
  }
}
