package io.tidestore.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tidestore.cluster.map.PoolInfo;
import io.tidestore.cluster.placement.ObjectHash;
import io.tidestore.cluster.placement.PgMapping;
import io.tidestore.cluster.placement.Placement;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code tidestore osd map POOL OBJECT}: Ceph's {@code ceph osd map}, computed from the map. */
@Command(
    name = "map",
    mixinStandardHelpOptions = true,
    description = {
      "Where an object lives, as ceph osd map: its raw PG (the whole hash), its PG, the up set"
          + " and primary, computed here from the monitors' map.",
      "Acting = up until peering lands (issue 17, stop 4)."
    })
final class OsdMapCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin MonOptions mon = new MonOptions();
  @Mixin PlacementFormat format = new PlacementFormat();

  @Parameters(index = "0", paramLabel = "POOL", description = "Pool name.")
  String poolName;

  @Parameters(index = "1", paramLabel = "OBJECT", description = "Object name.")
  String object;

  @Override
  public Integer call() {
    return format.withMap(
        spec,
        mon,
        map -> {
          PoolInfo pool = map.pool(poolName).orElse(null);
          if (pool == null) {
            spec.commandLine()
                .getErr()
                .println(spec.qualifiedName() + ": pool '" + poolName + "' does not exist");
            return 1;
          }
          PgMapping pg = Placement.of(map).object(pool, object);
          String raw = ObjectHash.rawPg(pool, object).toString();
          var out = spec.commandLine().getOut();
          if (format.json()) {
            ObjectNode root = PlacementFormat.JSON.createObjectNode();
            root.put("epoch", map.epoch())
                .put("pool", pool.name())
                .put("pool_id", pool.id())
                .put("objname", object)
                .put("raw_pgid", raw)
                .put("pgid", pg.pg().toString());
            PlacementFormat.putSets(root, pg);
            out.println(PlacementFormat.JSON.writeValueAsString(root));
            return 0;
          }
          out.println(
              "osdmap e"
                  + map.epoch()
                  + " pool '"
                  + pool.name()
                  + "' ("
                  + pool.id()
                  + ") object '"
                  + object
                  + "' -> pg "
                  + raw
                  + " ("
                  + pg.pg()
                  + ") -> up ("
                  + PlacementFormat.list(pg.up())
                  + ", p"
                  + pg.primary()
                  + ") acting ("
                  + PlacementFormat.list(pg.acting())
                  + ", p"
                  + pg.actingPrimary()
                  + ")");
          return 0;
        });
  }
}
