package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidestore.store.testing.RequiredTools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped monitoring: Prometheus' own tool accepts the alert rules and their unit tests, the
 * Grafana dashboard parses, and every metric the dashboard or the rules name is one a real daemon's
 * /metrics exports (a renamed metric would leave an empty panel or a silent alert).
 */
class ServiceMonitoringIT {
  private static final Path DASHBOARD = OsdProcess.ROOT.resolve("conf/grafana/tidestore.json");
  private static final Path ALERTS = OsdProcess.ROOT.resolve("conf/prometheus/alerts.yml");
  private static final Path ALERT_TESTS =
      OsdProcess.ROOT.resolve("conf/prometheus/alerts_test.yml");

  /** Metric names as the dashboard and the rules spell them (labels and functions are not). */
  private static final Pattern METRIC =
      Pattern.compile("\\b((?:tidestore|jvm|process|system)_[a-z0-9_]+)");

  private static final Pattern EXPR = Pattern.compile("^\\s*expr:\\s*(\\|)?\\s*(.*)$");

  @TempDir Path dir;

  @Test
  void promtoolAcceptsTheRulesAndTheirTests() throws Exception {
    RequiredTools.command("promtool", "prometheus");
    promtool("check", "rules", ALERTS.toString());
    promtool("test", "rules", ALERT_TESTS.toString());
  }

  @Test
  void theDashboardAndTheRulesNameOnlyMetricsTheDaemonExports() throws Exception {
    JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
    List<String> exprs = new ArrayList<>();
    for (JsonNode panel : dashboard.path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        exprs.add(target.path("expr").asText());
      }
    }
    assertTrue(exprs.size() >= 20, "the dashboard's queries: " + exprs);
    Set<String> dashboardMetrics = metricsIn(exprs);
    Set<String> alertMetrics = metricsIn(alertExprs());
    assertTrue(alertMetrics.size() >= 8, "the rules' metrics: " + alertMetrics);

    Set<String> exported;
    try (OsdProcess osd =
        OsdProcess.startOsd(dir.resolve("osd"), "--shards", "2", "--shard-size", "16m")) {
      exported = sampleNames(Scrape.metrics(osd.awaitReady()));
      osd.signal("TERM");
      assertEquals(0, osd.awaitExit(Duration.ofSeconds(30)), osd.output());
    }
    Set<String> missing = new TreeSet<>(dashboardMetrics);
    missing.removeAll(exported);
    assertTrue(missing.isEmpty(), "the dashboard names metrics /metrics lacks: " + missing);
    missing = new TreeSet<>(alertMetrics);
    missing.removeAll(exported);
    assertTrue(missing.isEmpty(), "the alert rules name metrics /metrics lacks: " + missing);
  }

  /** Every rule's expr, a block scalar's following lines included. */
  private static List<String> alertExprs() throws Exception {
    List<String> exprs = new ArrayList<>();
    List<String> lines = Files.readAllLines(ALERTS);
    for (int i = 0; i < lines.size(); i++) {
      Matcher m = EXPR.matcher(lines.get(i));
      if (!m.matches()) {
        continue;
      }
      StringBuilder expr = new StringBuilder(m.group(2));
      if (m.group(1) != null) {
        int indent = lines.get(i).indexOf("expr:");
        while (i + 1 < lines.size()
            && (lines.get(i + 1).isBlank() || indentOf(lines.get(i + 1)) > indent)) {
          expr.append('\n').append(lines.get(++i));
        }
      }
      exprs.add(expr.toString());
    }
    return exprs;
  }

  private static int indentOf(String line) {
    return line.length() - line.stripLeading().length();
  }

  private static Set<String> metricsIn(List<String> exprs) {
    Set<String> names = new TreeSet<>();
    for (String expr : exprs) {
      Matcher m = METRIC.matcher(expr);
      while (m.find()) {
        names.add(m.group(1));
      }
    }
    return names;
  }

  /** The sample names of a Prometheus text scrape ({@code name_bucket}, {@code name_count}...). */
  private static Set<String> sampleNames(String text) {
    Set<String> names = new TreeSet<>();
    for (String line : text.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int end = 0;
      while (end < line.length() && line.charAt(end) != '{' && line.charAt(end) != ' ') {
        end++;
      }
      names.add(line.substring(0, end));
    }
    return names;
  }

  private static void promtool(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("promtool"));
    command.addAll(List.of(args));
    try (OsdProcess p = OsdProcess.startCommand(command.toArray(String[]::new))) {
      int rc = p.awaitExit(Duration.ofSeconds(60));
      assertEquals(0, rc, String.join(" ", command) + ":\n" + p.output());
    }
  }
}
