package io.tidestore.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.pgstats.PgSummary;
import io.tidestore.cluster.placement.PgMapping;
import java.io.IOException;
import java.util.List;
import java.util.stream.Collectors;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code --format plain|json} of the placement commands and how they print OSD sets. */
final class PlacementFormat {
  static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  @Option(
      names = "--format",
      paramLabel = "plain|json",
      description = "json: Ceph's field names. Default: plain.")
  String format = "plain";

  void check(CommandSpec spec) {
    if (!format.equals("plain") && !format.equals("json")) {
      throw new ParameterException(
          spec.commandLine(),
          "Invalid value for option '--format': " + format + " (plain or json)");
    }
  }

  boolean json() {
    return format.equals("json");
  }

  /** Something printed from the monitors' map; its exit code. */
  @FunctionalInterface
  interface MapCall {
    int run(ClusterMap map) throws IOException;
  }

  /** Something printed from the monitors' map and PG states; its exit code. */
  @FunctionalInterface
  interface PgsCall {
    int run(ClusterMap map, PgSummary pgs) throws IOException;
  }

  /**
   * Checks {@code --format}, asks the monitors for the PG states and the map, runs {@code call}.
   */
  int withPgs(CommandSpec spec, MonOptions mon, PgsCall call) {
    check(spec);
    return PoolCommand.run(
        spec,
        mon,
        client -> {
          PgSummary pgs = client.pgStats();
          return call.run(client.fetchMap(), pgs);
        });
  }

  /** Checks {@code --format}, fetches the map from the monitors and runs {@code call} on it. */
  int withMap(CommandSpec spec, MonOptions mon, MapCall call) {
    check(spec);
    return PoolCommand.run(spec, mon, client -> call.run(client.fetchMap()));
  }

  /** An OSD set as Ceph prints it: {@code [2,0,1]}. */
  static String list(List<Integer> osds) {
    return osds.stream().map(String::valueOf).collect(Collectors.joining(",", "[", "]"));
  }

  /** Ceph's {@code up}, {@code up_primary}, {@code acting}, {@code acting_primary}. */
  static void putSets(ObjectNode node, PgMapping pg) {
    ArrayNode up = node.putArray("up");
    pg.up().forEach(up::add);
    node.put("up_primary", pg.primary());
    ArrayNode acting = node.putArray("acting");
    pg.acting().forEach(acting::add);
    node.put("acting_primary", pg.actingPrimary());
  }
}
