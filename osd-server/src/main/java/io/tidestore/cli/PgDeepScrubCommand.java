package io.tidestore.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tidestore.client.ClusterClient;
import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.PoolInfo;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.cluster.placement.PgMapping;
import io.tidestore.cluster.placement.Placement;
import io.tidestore.cluster.tls.TlsLinks;
import io.tidestore.cluster.wire.LinkSecurity;
import io.tidestore.osd.ops.ScrubReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tidestore pg deep-scrub PGID}: asks the PG's primary to deep-scrub it now and prints what
 * it found (docs/cluster.md, "Deep scrub"). Exit 0 when the PG is consistent or every bad copy was
 * repaired, 1 otherwise (or when the scrub could not run), 2 for bad arguments.
 */
@Command(
    name = "deep-scrub",
    mixinStandardHelpOptions = true,
    description = {
      "Deep-scrub one PG now: its primary compares every object's copies across the acting set,"
          + " one crc32c per 4 KiB block, repairs each bad copy from the authoritative one, and"
          + " reports (as ceph pg deep-scrub, then list-inconsistent-obj).",
      "Exit 0: consistent, or everything found was repaired. 1: copies left inconsistent (no"
          + " authoritative copy), or the scrub could not run. 2: bad arguments."
    })
final class PgDeepScrubCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin MonOptions mon = new MonOptions();
  @Mixin PlacementFormat format = new PlacementFormat();

  @Parameters(index = "0", paramLabel = "PGID", description = "The PG, as POOL.HEXSEED (1.2f).")
  String pgid;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      converter = DurationOption.class,
      description =
          "How long to wait for the report, the PG being peering or recovering meanwhile"
              + " included. Default: ${DEFAULT-VALUE}.")
  Duration timeout = Duration.ofMinutes(30);

  @Override
  public Integer call() throws IOException {
    format.check(spec);
    PgId pg;
    try {
      pg = PgId.parse(pgid);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    var monitors = mon.addresses(spec);
    Path certificates = mon.tls.directory();
    PrintWriter err = spec.commandLine().getErr();
    try (ClusterClient client =
        ClusterClient.connect(
            monitors,
            certificates == null ? LinkSecurity.PLAINTEXT : TlsLinks.client(certificates),
            mon.tls.objectProtocol(),
            timeout)) {
      ClusterMap map = client.map();
      String refusal = refusal(map, pg);
      if (refusal != null) {
        err.println("tidestore pg deep-scrub: " + refusal);
        return 1;
      }
      ScrubReport report = client.deepScrub(map.pools().get(pg.pool()).name(), pg.seed()).get();
      print(report);
      if (report.unrepaired() > 0) {
        err.println(
            "tidestore pg deep-scrub: pg "
                + pg
                + " has "
                + report.unrepaired()
                + " inconsistent "
                + (report.unrepaired() == 1 ? "copy" : "copies")
                + " left unrepaired");
        return 1;
      }
      return 0;
    } catch (ExecutionException e) {
      err.println("tidestore pg deep-scrub: " + e.getCause().getMessage());
      return 1;
    } catch (IOException e) {
      err.println("tidestore pg deep-scrub: " + e.getMessage());
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
  }

  /** Why {@code pg} cannot be scrubbed in {@code map}, or null. */
  private static String refusal(ClusterMap map, PgId pg) {
    PoolInfo pool = map.pools().get(pg.pool());
    if (pool == null) {
      return "pg " + pg + ": no pool with id " + pg.pool() + " in map epoch " + map.epoch();
    }
    if (Integer.compareUnsigned(pg.seed(), pool.pgNum()) >= 0) {
      return "pg "
          + pg
          + " does not exist: pool '"
          + pool.name()
          + "' has pg_num "
          + pool.pgNum()
          + " (seeds 0 to "
          + Integer.toHexString(pool.pgNum() - 1)
          + ")";
    }
    PgMapping mapping = Placement.of(map).pg(pg);
    if (mapping.actingPrimary() < 0) {
      return "pg "
          + pg
          + " has no primary: none of its OSDs "
          + PlacementFormat.list(mapping.up())
          + " is up (map epoch "
          + map.epoch()
          + ")";
    }
    return null;
  }

  private void print(ScrubReport r) throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    if (format.json()) {
      ObjectNode root = PlacementFormat.JSON.createObjectNode();
      root.put("pgid", r.pg())
          .put("primary", r.primary())
          .put("objects", r.objects())
          .put("blocks", r.blocks())
          .put("inconsistent", r.inconsistent())
          .put("repaired", r.repaired())
          .put("unrepaired", r.unrepaired())
          .put("skipped", r.skipped())
          .put("duration_ms", r.millis());
      ArrayNode findings = root.putArray("inconsistents");
      for (ScrubReport.Finding f : r.findings()) {
        ObjectNode node =
            findings
                .addObject()
                .put("object", f.object())
                .put("osd", f.osd())
                .put("problem", f.problem())
                .put("bad_blocks", f.badBlocks());
        ArrayNode blocks = node.putArray("blocks");
        f.blocks().forEach(blocks::add);
        node.put("repaired", f.repaired());
      }
      ArrayNode skipped = root.putArray("skipped_objects");
      r.skippedObjects().forEach(skipped::add);
      out.println(PlacementFormat.JSON.writeValueAsString(root));
      out.flush();
      return;
    }
    out.println(
        "pg "
            + r.pg()
            + " deep-scrubbed by osd."
            + r.primary()
            + ": "
            + r.objects()
            + " objects, "
            + r.blocks()
            + " blocks compared in "
            + r.millis()
            + " ms");
    for (ScrubReport.Finding f : r.findings()) {
      out.println(
          "  "
              + f.object()
              + (f.osd() < 0 ? "" : " on osd." + f.osd())
              + ": "
              + f.problem()
              + (f.blocks().isEmpty() ? "" : ", blocks " + blocks(f))
              + (f.repaired() ? ": repaired" : ": NOT repaired"));
    }
    for (String s : r.skippedObjects()) {
      out.println("  skipped " + s);
    }
    out.println(
        r.inconsistent()
            + " inconsistent, "
            + r.repaired()
            + " repaired, "
            + r.unrepaired()
            + " unrepaired, "
            + r.skipped()
            + " skipped");
    out.flush();
  }

  /** A finding's block list, the first 16 and how many more. */
  private static String blocks(ScrubReport.Finding f) {
    var shown = f.blocks().subList(0, Math.min(16, f.blocks().size()));
    int more = f.badBlocks() - shown.size();
    return shown + (more > 0 ? " and " + more + " more" : "");
  }
}
