package io.tidestore.cluster.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.OsdInfo;
import io.tidestore.cluster.pgstats.PgSummary;
import io.tidestore.cluster.wire.MonMessages;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code tidestore status}, Ceph's {@code ceph -s}: the map from the monitors, each monitor's own
 * view of the quorum, and the health derived from both. Its JSON uses the field names of {@code
 * ceph status -f json} where they apply. PG states are those the monitors resolved from their
 * primaries' reports ({@link PgSummary}); the health checks follow Ceph's: PG_AVAILABILITY for PGs
 * that serve no I/O, PG_DEGRADED for PGs with fewer good copies than their pool's size.
 */
public final class ClusterStatus {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private final ClusterMap map;
  private final List<MonMessages.Peer> monmap;
  private final Map<String, MonMessages.MonStatus> answered;
  private final MonMessages.MonStatus leader;
  private final PgSummary pgs;

  private ClusterStatus(
      ClusterMap map,
      List<MonMessages.Peer> monmap,
      Map<String, MonMessages.MonStatus> answered,
      PgSummary pgs) {
    this.map = map;
    this.monmap = monmap;
    this.answered = answered;
    this.leader =
        answered.values().stream().filter(s -> s.role().equals("leader")).findFirst().orElse(null);
    this.pgs = pgs;
  }

  /**
   * Asks the monitors: the PG states (with the map they were resolved against), the map, then every
   * monitor of the group for its own status.
   */
  public static ClusterStatus gather(MonClient client, List<InetSocketAddress> given)
      throws IOException, InterruptedException {
    PgSummary pgs = client.pgStats();
    ClusterMap map = client.fetchMap();
    List<MonMessages.Peer> monmap = null;
    Map<String, MonMessages.MonStatus> answered = new LinkedHashMap<>();
    for (InetSocketAddress address : given) {
      try {
        MonMessages.MonStatus status = client.monStatus(address);
        monmap = status.peers();
        break;
      } catch (IOException e) {
        // Ask the next one for the monmap.
      }
    }
    if (monmap == null) {
      throw new IOException("no monitor of " + given + " answered a status request");
    }
    for (MonMessages.Peer peer : monmap) {
      try {
        answered.put(peer.id(), client.monStatus(MonAddresses.parseOne(peer.address())));
      } catch (IOException e) {
        // Down: not in quorum.
      }
    }
    return new ClusterStatus(map, monmap, answered, pgs);
  }

  /**
   * The monitors in quorum: those the leader heard from recently and that answered this status
   * request themselves (a leader elected a moment ago has not yet missed a dead follower).
   */
  public List<String> quorumNames() {
    return leader == null
        ? List.of()
        : leader.quorum().stream().filter(answered::containsKey).toList();
  }

  /** HEALTH_OK, HEALTH_WARN or HEALTH_ERR, and the checks that made it so. */
  private Map<String, String[]> checks() {
    Map<String, String[]> checks = new LinkedHashMap<>();
    if (leader == null) {
      checks.put(
          "MON_NO_QUORUM", new String[] {"HEALTH_ERR", "no monitor leader: the map cannot change"});
    } else if (quorumNames().size() < monmap.size()) {
      List<String> out = new ArrayList<>();
      monmap.forEach(
          p -> {
            if (!quorumNames().contains(p.id())) {
              out.add(p.id());
            }
          });
      checks.put(
          "MON_DOWN",
          new String[] {
            "HEALTH_WARN",
            out.size()
                + "/"
                + monmap.size()
                + " mons down, quorum "
                + String.join(",", quorumNames())
          });
    }
    int down = map.osds().size() - map.numUp();
    if (down > 0) {
      checks.put("OSD_DOWN", new String[] {"HEALTH_WARN", down + " osds down"});
    }
    if (pgs.inactive() > 0) {
      checks.put(
          "PG_AVAILABILITY",
          new String[] {
            "HEALTH_WARN",
            "Reduced data availability: "
                + pgs.inactive()
                + " pgs inactive"
                + words("peering", "down", "unknown", "stale", "recovering", "backfilling")
          });
    }
    if (pgs.degraded() > 0) {
      checks.put(
          "PG_DEGRADED",
          new String[] {
            "HEALTH_WARN",
            "Degraded data redundancy: "
                + pgs.degraded()
                + " pgs degraded"
                + words("undersized", "recovering", "backfilling", "recovery_wait")
          });
    }
    return checks;
  }

  /** ", 3 pgs peering, 1 pg down" for those of {@code names} some PG has. */
  private String words(String... names) {
    StringBuilder s = new StringBuilder();
    for (String word : names) {
      long n = pgs.withWord(word);
      if (n > 0) {
        s.append(", ").append(n).append(n == 1 ? " pg " : " pgs ").append(word);
      }
    }
    return s.toString();
  }

  private String health(Map<String, String[]> checks) {
    String health = "HEALTH_OK";
    for (String[] check : checks.values()) {
      if (check[0].equals("HEALTH_ERR")) {
        return "HEALTH_ERR";
      }
      health = "HEALTH_WARN";
    }
    return health;
  }

  public String json() throws IOException {
    Map<String, String[]> checks = checks();
    ObjectNode root = JSON.createObjectNode();
    root.put("fsid", map.fsid().toString());
    ObjectNode health = root.putObject("health");
    health.put("status", health(checks));
    ObjectNode checkNodes = health.putObject("checks");
    checks.forEach(
        (code, c) -> {
          ObjectNode node = checkNodes.putObject(code);
          node.put("severity", c[0]);
          node.putObject("summary").put("message", c[1]);
        });
    root.put("election_epoch", leader == null ? 0 : leader.term());
    ArrayNode quorum = root.putArray("quorum");
    ArrayNode quorumNames = root.putArray("quorum_names");
    for (int rank = 0; rank < monmap.size(); rank++) {
      if (quorumNames().contains(monmap.get(rank).id())) {
        quorum.add(rank);
        quorumNames.add(monmap.get(rank).id());
      }
    }
    root.put("quorum_leader_name", leader == null ? "" : leader.id());
    ObjectNode monmapNode = root.putObject("monmap");
    monmapNode.put("num_mons", monmap.size());
    ArrayNode mons = monmapNode.putArray("mons");
    for (int rank = 0; rank < monmap.size(); rank++) {
      MonMessages.Peer peer = monmap.get(rank);
      MonMessages.MonStatus s = answered.get(peer.id());
      mons.addObject()
          .put("rank", rank)
          .put("name", peer.id())
          .put("addr", peer.address())
          .put("state", s == null ? "down" : s.role())
          .put("epoch", s == null ? 0 : s.epoch());
    }
    ObjectNode osdmap = root.putObject("osdmap");
    osdmap.put("epoch", map.epoch());
    osdmap.put("num_osds", map.osds().size());
    osdmap.put("num_up_osds", map.numUp());
    osdmap.put("num_in_osds", map.numIn());
    osdmap.put("num_remapped_pgs", 0);
    ArrayNode osds = osdmap.putArray("osds");
    for (OsdInfo osd : map.osds().values()) {
      osds.addObject()
          .put("osd", osd.id())
          .put("up", osd.up() ? 1 : 0)
          .put("in", osd.in() ? 1 : 0)
          .put("host", osd.host())
          .put("weight", osd.weight())
          .put("addr", osd.address())
          .put("up_from", osd.upFrom());
    }
    ObjectNode pgmap = root.putObject("pgmap");
    ArrayNode byState = pgmap.putArray("pgs_by_state");
    pgs.byState()
        .forEach(
            (state, count) -> byState.addObject().put("state_name", state).put("count", count));
    pgmap.put("num_pgs", pgs.pgs().size());
    pgmap.put("num_pools", map.pools().size());
    pgmap.put("recovering_objects_per_sec", Math.round(pgs.recoveringObjectsPerSec()));
    pgmap.put("recovering_bytes_per_sec", Math.round(pgs.recoveringBytesPerSec()));
    pgmap.put("epoch", pgs.epoch());
    return JSON.writeValueAsString(root);
  }

  /** The {@code ceph -s} layout. */
  public String text() {
    Map<String, String[]> checks = checks();
    StringBuilder s = new StringBuilder();
    s.append("  cluster:\n");
    s.append("    id:     ").append(map.fsid()).append('\n');
    s.append("    health: ").append(health(checks)).append('\n');
    checks.forEach(
        (code, c) -> s.append("            ").append(code).append(": ").append(c[1]).append('\n'));
    s.append("\n  services:\n");
    s.append("    mon: ").append(monmap.size()).append(" daemons, quorum ");
    s.append(quorumNames().isEmpty() ? "(none)" : String.join(",", quorumNames()));
    if (leader != null) {
      s.append(" (leader ").append(leader.id()).append(", term ").append(leader.term()).append(')');
    }
    s.append('\n');
    s.append("    osd: ")
        .append(map.osds().size())
        .append(" osds: ")
        .append(map.numUp())
        .append(" up, ")
        .append(map.numIn())
        .append(" in; map epoch ")
        .append(map.epoch())
        .append('\n');
    s.append("\n  data:\n");
    s.append("    pools:   ")
        .append(map.pools().size())
        .append(" pools, ")
        .append(map.numPgs())
        .append(" pgs\n");
    String indent = "    pgs:     ";
    for (var e : pgs.byState().entrySet()) {
      s.append(indent).append(e.getValue()).append(' ').append(e.getKey()).append('\n');
      indent = "             ";
    }
    if (pgs.recoveringObjectsPerSec() > 0 || pgs.recoveringBytesPerSec() > 0) {
      s.append("\n  io:\n    recovery: ")
          .append(String.format("%.1f MiB/s, ", pgs.recoveringBytesPerSec() / (1 << 20)))
          .append(String.format("%.0f objects/s%n", pgs.recoveringObjectsPerSec()));
    }
    return s.toString();
  }
}
