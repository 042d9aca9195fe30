package io.tidestore.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tidestore.cluster.pgstats.PgSummary;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.cluster.placement.PgMapping;
import io.tidestore.cluster.placement.Placement;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code tidestore pg dump}: every PG of every pool, as {@code ceph pg dump pgs_brief}; {@code pg
 * deep-scrub PGID} ({@link PgDeepScrubCommand}).
 */
@Command(
    name = "pg",
    mixinStandardHelpOptions = true,
    description = "The cluster's placement groups: dump, deep-scrub.",
    subcommands = {PgCommand.Dump.class, PgDeepScrubCommand.class})
final class PgCommand {

  @Command(
      name = "dump",
      mixinStandardHelpOptions = true,
      description = {
        "Every PG with its state, up set and primary (as ceph pg dump pgs_brief): the sets are"
            + " computed here from the monitors' map, the state is what the monitors resolved"
            + " from the PG's primary's last report (active+clean when healthy; unknown: its"
            + " primary has not reported since it came up; peering: it reported an earlier"
            + " interval; stale+: its report is older than 10 s).",
        "LOG_HEAD is the newest entry of the primary's PG log (epoch'version)."
      })
  static final class Dump implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin MonOptions mon = new MonOptions();
    @Mixin PlacementFormat format = new PlacementFormat();

    @Override
    public Integer call() {
      return format.withPgs(
          spec,
          mon,
          (map, pgs) -> {
            var out = spec.commandLine().getOut();
            Map<PgId, PgSummary.Pg> reported = new HashMap<>();
            pgs.pgs().forEach(p -> reported.put(p.pg(), p));
            if (format.json()) {
              ObjectNode root = PlacementFormat.JSON.createObjectNode();
              root.put("epoch", map.epoch());
              ArrayNode stats = root.putArray("pg_stats");
              for (PgMapping pg : Placement.of(map).all()) {
                PgSummary.Pg p = reported.get(pg.pg());
                ObjectNode node =
                    stats
                        .addObject()
                        .put("pgid", pg.pg().toString())
                        .put("state", p == null ? "unknown" : p.state())
                        .put("log_head", p == null ? "0'0" : p.head().toString());
                PlacementFormat.putSets(node, pg);
              }
              out.println(PlacementFormat.JSON.writeValueAsString(root));
              return 0;
            }
            String row = "%-10s %-28s %-16s %10s  %-16s %14s  %s%n";
            out.printf(
                row,
                "PG_STAT",
                "STATE",
                "UP",
                "UP_PRIMARY",
                "ACTING",
                "ACTING_PRIMARY",
                "LOG_HEAD");
            for (PgMapping pg : Placement.of(map).all()) {
              PgSummary.Pg p = reported.get(pg.pg());
              out.printf(
                  row,
                  pg.pg(),
                  p == null ? "unknown" : p.state(),
                  PlacementFormat.list(pg.up()),
                  pg.primary(),
                  PlacementFormat.list(pg.acting()),
                  pg.actingPrimary(),
                  p == null ? "0'0" : p.head());
            }
            out.flush();
            return 0;
          });
    }
  }
}
