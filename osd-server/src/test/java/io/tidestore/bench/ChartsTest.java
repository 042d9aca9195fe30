package io.tidestore.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.bench.report.Charts;
import io.tidestore.bench.result.ThreadCpuSampler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChartsTest {
  @TempDir Path dir;

  private static final byte[] PNG_MAGIC = {(byte) 0x89, 'P', 'N', 'G'};

  private static void assertPngAndSvg(Path base) throws Exception {
    Path png = base.resolveSibling(base.getFileName() + ".png");
    Path svg = base.resolveSibling(base.getFileName() + ".svg");
    byte[] head = new byte[4];
    System.arraycopy(Files.readAllBytes(png), 0, head, 0, 4);
    assertArrayEquals(PNG_MAGIC, head);
    var image = ImageIO.read(png.toFile());
    assertTrue(image.getWidth() >= 800 && image.getHeight() >= 500);
    String text = Files.readString(svg);
    assertTrue(text.contains("<svg"), "SVG written");
  }

  @Test
  void responseLatencyCurvesWithErrorBars() throws Exception {
    Path base = dir.resolve("randread4k-iops-vs-latency");
    Charts.responseLatency(
        base,
        "randread 4k",
        "IOPS",
        List.of(
            new Charts.Curve(
                "tidestore",
                List.of(
                    new Charts.CurvePoint(1, 10_000, 0.1, 0.02),
                    new Charts.CurvePoint(8, 50_000, 0.16, 0.05))),
            new Charts.Curve("nbdkit", List.of(new Charts.CurvePoint(1, 9_000, 0.11, 0.03)))));
    assertPngAndSvg(base);
    var chart =
        Charts.responseLatencyChart(
            "t",
            "IOPS",
            List.of(new Charts.Curve("a", List.of(new Charts.CurvePoint(1, 1, 1, 0.5)))));
    assertArrayEquals(new double[] {0.5}, chart.getSeriesMap().get("a").getExtraValues());
  }

  @Test
  void cpuPerThreadFoldsSmallThreadsIntoOther() throws Exception {
    Map<String, Double> cpu = new java.util.TreeMap<>();
    for (int i = 0; i < 12; i++) {
      cpu.put("t-" + i, (double) i);
    }
    List<ThreadCpuSampler.Sample> samples =
        List.of(new ThreadCpuSampler.Sample(1, cpu, 100), new ThreadCpuSampler.Sample(2, cpu, 101));
    Path base = dir.resolve("cpu");
    Charts.cpuPerThread(base, "CPU per thread", samples);
    assertPngAndSvg(base);
    var series = Charts.cpuPerThreadChart("t", samples).getSeriesMap();
    assertEquals(9, series.size(), series.keySet().toString());
    assertTrue(
        series.containsKey("t-11") && !series.containsKey("t-3"), series.keySet().toString());
    // t-0 .. t-3 fold into "other": 0 + 1 + 2 + 3 per sample.
    assertArrayEquals(new double[] {6, 6}, series.get("other").getYData());
  }

  @Test
  void reactorUtilizationIsADashedLineBesideTheReactorsCpu() throws Exception {
    Map<String, Double> cpu = Map.of("reactor-0", 95.0);
    List<ThreadCpuSampler.Sample> samples =
        List.of(
            new ThreadCpuSampler.Sample(1, cpu, 100, Map.of("reactor-0", 12.5)),
            // A second without a scrape (the daemon was slow to answer): a gap, not a zero.
            new ThreadCpuSampler.Sample(2, cpu, 100, Map.of()),
            new ThreadCpuSampler.Sample(3, cpu, 100, Map.of("reactor-0", 20.0)));
    Path base = dir.resolve("util");
    Charts.cpuPerThread(base, "CPU per thread", samples);
    assertPngAndSvg(base);
    var series = Charts.cpuPerThreadChart("t", samples).getSeriesMap();
    assertEquals(2, series.size(), series.keySet().toString());
    double[] busy = series.get("reactor-0 utilization").getYData();
    assertEquals(12.5, busy[0]);
    assertTrue(Double.isNaN(busy[1]));
    assertEquals(20.0, busy[2]);
  }
}
