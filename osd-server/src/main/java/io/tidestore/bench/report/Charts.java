package io.tidestore.bench.report;

import io.tidestore.bench.result.ThreadCpuSampler;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The seed reports' charts, drawn with XChart and written as both PNG and SVG: response-latency
 * curves (throughput vs mean latency, stdev error bars, one point per iodepth) and CPU per thread
 * over time.
 */
public final class Charts {
  private static final int WIDTH = 900;
  private static final int HEIGHT = 560;

  /** Threads drawn on the CPU chart; the rest are summed into "other". */
  static final int MAX_THREAD_SERIES = 8;

  private Charts() {}

  /** One curve: a label and its points in iodepth order. */
  public record Curve(String label, List<CurvePoint> points) {}

  /** Throughput (IOPS or MiB/s), mean latency and its standard deviation, in ms. */
  public record CurvePoint(int iodepth, double throughput, double latencyMs, double stdevMs) {}

  /**
   * Writes {@code base}.png and {@code base}.svg: throughput on x, latency on y, error bars of one
   * standard deviation, as in the seeds' "IOPs vs. Latency" figures.
   */
  public static void responseLatency(
      Path base, String title, String throughputAxis, List<Curve> curves) throws IOException {
    write(responseLatencyChart(title, throughputAxis, curves), base);
  }

  /** The response-latency chart, unwritten. */
  public static XYChart responseLatencyChart(
      String title, String throughputAxis, List<Curve> curves) {
    XYChart chart =
        new XYChartBuilder()
            .width(WIDTH)
            .height(HEIGHT)
            .title(title)
            .xAxisTitle(throughputAxis)
            .yAxisTitle("mean completion latency (ms)")
            .build();
    style(chart);
    // Latency and throughput are never negative; a stdev bar wider than the mean is clipped at 0.
    chart.getStyler().setYAxisMin(0.0);
    chart.getStyler().setXAxisMin(0.0);
    chart.getStyler().setXAxisDecimalPattern("#,##0");
    chart.getStyler().setYAxisDecimalPattern("0.###");
    for (Curve curve : curves) {
      if (curve.points().isEmpty()) {
        continue;
      }
      double[] x = curve.points().stream().mapToDouble(CurvePoint::throughput).toArray();
      double[] y = curve.points().stream().mapToDouble(CurvePoint::latencyMs).toArray();
      double[] err = curve.points().stream().mapToDouble(CurvePoint::stdevMs).toArray();
      XYSeries series = chart.addSeries(curve.label(), x, y, err);
      series.setMarker(SeriesMarkers.CIRCLE);
    }
    return chart;
  }

  /** Writes {@code base}.png/.svg: CPU percent of one core per thread name over time. */
  public static void cpuPerThread(Path base, String title, List<ThreadCpuSampler.Sample> samples)
      throws IOException {
    write(cpuPerThreadChart(title, samples), base);
  }

  /** The CPU-per-thread chart, unwritten. */
  public static XYChart cpuPerThreadChart(String title, List<ThreadCpuSampler.Sample> samples) {
    XYChart chart =
        new XYChartBuilder()
            .width(WIDTH)
            .height(HEIGHT)
            .title(title)
            .xAxisTitle("time (s)")
            .yAxisTitle("CPU (% of one core)")
            .build();
    style(chart);
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
    chart.getStyler().setYAxisMin(0.0);
    chart.getStyler().setYAxisDecimalPattern("0");
    Map<String, Double> totals = new LinkedHashMap<>();
    for (ThreadCpuSampler.Sample s : samples) {
      s.cpuByThread().forEach((name, cpu) -> totals.merge(name, cpu, Double::sum));
    }
    List<String> top =
        totals.entrySet().stream()
            .sorted(Map.Entry.<String, Double>comparingByValue(Comparator.reverseOrder()))
            .limit(MAX_THREAD_SERIES)
            .map(Map.Entry::getKey)
            .sorted()
            .toList();
    double[] time = samples.stream().mapToDouble(ThreadCpuSampler.Sample::seconds).toArray();
    if (time.length == 0) {
      time = new double[] {0};
    }
    for (String name : top) {
      double[] cpu =
          samples.stream().mapToDouble(s -> s.cpuByThread().getOrDefault(name, 0.0)).toArray();
      chart
          .addSeries(name, time, cpu.length == 0 ? new double[] {0} : cpu)
          .setMarker(SeriesMarkers.NONE);
    }
    if (totals.size() > top.size()) {
      List<Double> other = new ArrayList<>();
      for (ThreadCpuSampler.Sample s : samples) {
        double sum = 0;
        for (var e : s.cpuByThread().entrySet()) {
          if (!top.contains(e.getKey())) {
            sum += e.getValue();
          }
        }
        other.add(sum);
      }
      chart
          .addSeries("other", time, other.stream().mapToDouble(Double::doubleValue).toArray())
          .setMarker(SeriesMarkers.NONE);
    }
    addUtilization(chart, samples, time);
    if (chart.getSeriesMap().isEmpty()) {
      chart.addSeries("no samples", new double[] {0}, new double[] {0});
    }
    return chart;
  }

  /**
   * A dashed line per reactor of its busy percent (tidestore_reactor_utilization), on the CPU axis:
   * where the reactor thread's CPU stands above it, the reactor was polling with nothing to do.
   */
  private static void addUtilization(
      XYChart chart, List<ThreadCpuSampler.Sample> samples, double[] time) {
    Set<String> reactors = new TreeSet<>();
    samples.forEach(s -> reactors.addAll(s.reactorUtilization().keySet()));
    for (String reactor : reactors) {
      double[] busy =
          samples.stream()
              .mapToDouble(s -> s.reactorUtilization().getOrDefault(reactor, Double.NaN))
              .toArray();
      chart
          .addSeries(reactor + " utilization", time, busy)
          .setMarker(SeriesMarkers.NONE)
          .setLineStyle(SeriesLines.DASH_DASH);
    }
  }

  private static void style(XYChart chart) {
    Styler styler = chart.getStyler();
    styler.setLegendPosition(Styler.LegendPosition.InsideNW);
    styler.setChartBackgroundColor(Color.WHITE);
    styler.setPlotBackgroundColor(Color.WHITE);
    chart.getStyler().setErrorBarsColor(Color.GRAY);
  }

  /** Writes {@code base}.png and {@code base}.svg. */
  public static void write(XYChart chart, Path base) throws IOException {
    String file = base.toString();
    BitmapEncoder.saveBitmap(chart, file, BitmapEncoder.BitmapFormat.PNG);
    VectorGraphicsEncoder.saveVectorGraphic(
        chart, file, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
  }
}
