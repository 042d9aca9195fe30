package io.tidestore.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.placement.MapPgStates;
import io.tidestore.cluster.placement.PgMapping;
import io.tidestore.cluster.placement.Placement;
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
        "Every PG with its up set and primary (as ceph pg dump pgs_brief), computed here from"
            + " the monitors' map.",
        "Acting = up until peering lands (issue 17, stop 4). STATE comes from the map alone:"
            + " 'undersized' when fewer OSDs are up than the pool's min_size (no I/O possible),"
            + " else 'unknown' (no OSD reports PG states yet)."
      })
  static final class Dump implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin MonOptions mon = new MonOptions();
    @Mixin PlacementFormat format = new PlacementFormat();

    @Override
    public Integer call() {
      return format.withMap(
          spec,
          mon,
          map -> {
            var out = spec.commandLine().getOut();
            if (format.json()) {
              ObjectNode root = PlacementFormat.JSON.createObjectNode();
              root.put("epoch", map.epoch());
              ArrayNode stats = root.putArray("pg_stats");
              for (PgMapping pg : Placement.of(map).all()) {
                ObjectNode node =
                    stats.addObject().put("pgid", pg.pg().toString()).put("state", state(map, pg));
                PlacementFormat.putSets(node, pg);
              }
              out.println(PlacementFormat.JSON.writeValueAsString(root));
              return 0;
            }
            String row = "%-10s %-11s %-16s %10s  %-16s %14s%n";
            out.printf(row, "PG_STAT", "STATE", "UP", "UP_PRIMARY", "ACTING", "ACTING_PRIMARY");
            for (PgMapping pg : Placement.of(map).all()) {
              out.printf(
                  row,
                  pg.pg(),
                  state(map, pg),
                  PlacementFormat.list(pg.up()),
                  pg.primary(),
                  PlacementFormat.list(pg.acting()),
                  pg.actingPrimary());
            }
            out.flush();
            return 0;
          });
    }

    private static String state(ClusterMap map, PgMapping pg) {
      return MapPgStates.state(pg, map.pools().get(pg.pg().pool()));
    }
  }
}
