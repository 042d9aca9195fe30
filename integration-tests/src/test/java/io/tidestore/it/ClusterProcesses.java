package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidestore.client.ClusterClient;
import io.tidestore.cluster.client.MonAddresses;
import io.tidestore.cluster.local.MonPortPair;
import io.tidestore.cluster.wire.LinkSecurity;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the cluster tests share: monitors and cluster-mode OSDs as real processes of the jar, the
 * client commands ({@code status}, {@code pool}) run as processes too, and free ports.
 */
final class ClusterProcesses {
  static final Duration START = Duration.ofSeconds(60);
  static final Duration COMMAND = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern METRICS_PORT = Pattern.compile("metrics=(\\d+)");
  private static final Pattern OSD_ID =
      Pattern.compile("registered with the monitors as osd\\.(\\d+)");

  private ClusterProcesses() {}

  /** A free port whose neighbour (the monitor's Raft port, P+1) is free too. */
  static int freePortPair() throws IOException {
    return MonPortPair.pick();
  }

  /** {@code tidestore mon} with its admin HTTP on a free port, plus {@code extra}. */
  static OsdProcess startMon(String id, Path data, int port, String peers, String... extra)
      throws IOException {
    List<String> args =
        new ArrayList<>(
            List.of(
                "mon",
                "--id",
                id,
                "--data",
                data.toString(),
                "--listen",
                "127.0.0.1:" + port,
                "--metrics-port",
                "0"));
    if (peers != null) {
      args.addAll(List.of("--peers", peers));
    }
    args.addAll(Arrays.asList(extra));
    return OsdProcess.start(args.toArray(String[]::new));
  }

  /** Waits for the monitor's ready line; its admin HTTP port. */
  static int awaitMonReady(OsdProcess mon) throws InterruptedException {
    Matcher m = METRICS_PORT.matcher(mon.awaitLine("tidestore mon ready", START));
    assertTrue(m.find(), mon.output());
    return Integer.parseInt(m.group(1));
  }

  /** A small cluster-mode OSD of {@code monitors} on free ports, plus {@code extra}. */
  static OsdProcess startOsd(Path data, String monitors, String... extra) throws IOException {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--mon",
                monitors,
                "--listen",
                "127.0.0.1",
                "--shards",
                "1",
                "--shard-size",
                "16m",
                "--cache-size",
                "16m",
                "--reactors",
                "1",
                "--host",
                "it-host"));
    args.addAll(Arrays.asList(extra));
    return OsdProcess.startOsd(data, args.toArray(String[]::new));
  }

  /**
   * Monitors (heartbeat grace 2 s, failure domain osd) and OSDs on loopback, for the replication
   * tests; closing it stops every process (OSDs first).
   *
   * @param mons each monitor by id ({@code a}, {@code b}, ...; a test may replace one it restarted)
   * @param monitors every monitor's {@code 127.0.0.1:port}, comma-separated
   * @param osds each OSD by id (a test may replace one it restarted)
   * @param data each OSD's data directory by id
   */
  record Cluster(
      Map<String, OsdProcess> mons,
      String monitors,
      Map<Integer, OsdProcess> osds,
      Map<Integer, Path> data)
      implements AutoCloseable {
    /** The first monitor's port. */
    int port() {
      return addresses().get(0).getPort();
    }

    /** Every monitor's address. */
    List<InetSocketAddress> addresses() {
      return MonAddresses.parse(monitors);
    }

    /** A client of this cluster, over plaintext, whose ops give up after {@code opTimeout}. */
    ClusterClient client(Duration opTimeout) throws IOException, InterruptedException {
      return ClusterClient.connect(addresses(), LinkSecurity.PLAINTEXT, null, opTimeout);
    }

    /** Starts OSD {@code id} again on its data directory (plus {@code extra}) and waits for it. */
    OsdProcess restartOsd(int id, String... extra) throws IOException, InterruptedException {
      OsdProcess osd = startOsd(data.get(id), monitors, extra);
      osds.put(id, osd);
      int registered = awaitRegistered(osd);
      assertTrue(registered == id, "osd." + id + " came back as osd." + registered);
      return osd;
    }

    @Override
    public void close() throws InterruptedException {
      for (OsdProcess osd : osds.values()) {
        osd.close();
      }
      for (OsdProcess mon : mons.values()) {
        mon.close();
      }
    }
  }

  /** Starts a {@link Cluster} of one monitor and {@code count} OSDs, all of them up in the map. */
  static Cluster startCluster(Path dir, int count) throws Exception {
    return startCluster(dir, count, 1);
  }

  /** {@link #startCluster(Path, int)}, each OSD started with {@code osdExtra} too. */
  static Cluster startCluster(Path dir, int count, String... osdExtra) throws Exception {
    return startCluster(dir, count, 1, osdExtra);
  }

  /**
   * Starts a {@link Cluster} of {@code monCount} monitors ({@code a}, {@code b}, ...) and {@code
   * count} OSDs (each started with {@code osdExtra} too) and waits until the map has every OSD up.
   */
  static Cluster startCluster(Path dir, int count, int monCount, String... osdExtra)
      throws Exception {
    List<Integer> ports = monPorts(monCount);
    List<String> peerList = new ArrayList<>();
    List<String> addresses = new ArrayList<>();
    for (int i = 0; i < monCount; i++) {
      peerList.add((char) ('a' + i) + "=127.0.0.1:" + ports.get(i));
      addresses.add("127.0.0.1:" + ports.get(i));
    }
    String monitors = String.join(",", addresses);
    Cluster cluster =
        new Cluster(new LinkedHashMap<>(), monitors, new HashMap<>(), new HashMap<>());
    try {
      for (int i = 0; i < monCount; i++) {
        String id = String.valueOf((char) ('a' + i));
        cluster
            .mons()
            .put(
                id,
                startMon(
                    id,
                    dir.resolve("mon." + id),
                    ports.get(i),
                    monCount == 1 ? null : String.join(",", peerList),
                    "--osd-heartbeat-grace",
                    "2s",
                    "--failure-domain",
                    "osd"));
      }
      for (OsdProcess mon : cluster.mons().values()) {
        awaitMonReady(mon);
      }
      for (int i = 0; i < count; i++) {
        addOsd(cluster, dir.resolve("osd." + i), osdExtra);
      }
      awaitStatus(
          monitors,
          Duration.ofSeconds(30),
          s -> s.path("osdmap").path("num_up_osds").asInt() == count);
      return cluster;
    } catch (Exception | Error e) {
      cluster.close();
      throw e;
    }
  }

  /** Starts a new OSD of {@code cluster} on {@code data}; its id, once it registered. */
  static int addOsd(Cluster cluster, Path data, String... extra)
      throws IOException, InterruptedException {
    OsdProcess osd = startOsd(data, cluster.monitors(), extra);
    int id;
    try {
      id = awaitRegistered(osd);
    } catch (AssertionError e) {
      osd.close();
      throw e;
    }
    cluster.osds().put(id, osd);
    cluster.data().put(id, data);
    return id;
  }

  /** Ports for {@code n} monitors: free pairs (P, the Raft port P+1) that do not overlap. */
  static List<Integer> monPorts(int n) throws IOException {
    List<Integer> ports = new ArrayList<>();
    while (ports.size() < n) {
      int port = freePortPair();
      if (!ports.contains(port) && !ports.contains(port + 1) && !ports.contains(port - 1)) {
        ports.add(port);
      }
    }
    return ports;
  }

  /**
   * Until {@code osd} has loaded at least {@code pgs} PGs (it is a member of that many) and none of
   * them is peering or recovering: a PG is loaded on its first op or peering there, so this waits
   * for the cluster itself, the test touching no PG.
   */
  static void awaitPgsSettled(OsdProcess osd, int pgs) throws Exception {
    Status.await(
        osdMetricsPort(osd),
        s -> {
          int loaded = 0;
          for (JsonNode count : s.path("pgs")) {
            loaded += count.asInt();
          }
          return loaded >= pgs && settled(s.path("pgs"));
        },
        Duration.ofSeconds(60),
        pgs + " PGs loaded, none peering or recovering");
  }

  /**
   * No PG in a state with one of Ceph's words for work under way (states are words joined by +).
   */
  private static boolean settled(JsonNode pgs) {
    for (var states = pgs.fieldNames(); states.hasNext(); ) {
      String state = states.next();
      for (String word : state.split("\\+")) {
        if (pgs.path(state).asInt() > 0
            && List.of(
                    "peering",
                    "activating",
                    "recovering",
                    "backfilling",
                    "recovery_wait",
                    "unknown")
                .contains(word)) {
          return false;
        }
      }
    }
    return true;
  }

  /** The admin HTTP port of a cluster OSD (its ready line says {@code nbd=none}). */
  static int osdMetricsPort(OsdProcess osd) throws InterruptedException {
    Matcher m = METRICS_PORT.matcher(osd.awaitLine("tidestore osd ready", START));
    assertTrue(m.find(), osd.output());
    return Integer.parseInt(m.group(1));
  }

  /** Waits until the OSD has registered; the id the monitors gave it. */
  static int awaitRegistered(OsdProcess osd) throws InterruptedException {
    Matcher m = OSD_ID.matcher(osd.awaitLine("registered with the monitors as osd.", START));
    assertTrue(m.find(), osd.output());
    return Integer.parseInt(m.group(1));
  }

  /** A {@link ClusterClient} of the monitor on {@code port}, giving an op up after 60 s. */
  static ClusterClient client(int port) throws Exception {
    return ClusterClient.connect(
        List.of(new InetSocketAddress("127.0.0.1", port)),
        LinkSecurity.PLAINTEXT,
        null,
        Duration.ofSeconds(60));
  }

  /** A client command's exit code and its output (stdout and stderr merged). */
  record Result(int exit, String output) {}

  /** Runs {@code tidestore ARGS...} to its end. */
  static Result run(String... args) throws IOException, InterruptedException {
    OsdProcess command = OsdProcess.start(args);
    int exit = command.awaitExit(COMMAND);
    return new Result(exit, command.output());
  }

  /** {@code tidestore pool create NAME --size N --min-size M --pg-num P --mon MONITORS}. */
  static Result poolCreate(String monitors, String name, int size, int minSize, int pgNum)
      throws IOException, InterruptedException {
    return run(
        "pool",
        "create",
        name,
        "--size",
        Integer.toString(size),
        "--min-size",
        Integer.toString(minSize),
        "--pg-num",
        Integer.toString(pgNum),
        "--mon",
        monitors);
  }

  /** {@code tidestore status --mon MONITORS --format json}, parsed; fails on a non-zero exit. */
  static JsonNode status(String monitors) throws IOException, InterruptedException {
    Result r = run("status", "--mon", monitors, "--format", "json");
    assertTrue(r.exit() == 0, "status failed: " + r.output());
    String out = r.output();
    return JSON.readTree(out.substring(out.indexOf('{')));
  }

  /**
   * Asks for the status until {@code until} holds (the monitors' map moves on their own clock:
   * grace, down-out interval) and returns it; fails with the last status at the deadline.
   */
  static JsonNode awaitStatus(String monitors, Duration timeout, Predicate<JsonNode> until)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    JsonNode last;
    do {
      last = status(monitors);
      if (until.test(last)) {
        return last;
      }
    } while (System.nanoTime() < deadline);
    throw new AssertionError("status never matched within " + timeout + ": " + last);
  }

  /**
   * Waits until every PG of the cluster is active+clean as the monitors report it (each PG's
   * primary peered and recovered it on its own: no client op is needed to start recovery).
   */
  static JsonNode awaitActiveClean(String monitors, Duration timeout)
      throws IOException, InterruptedException {
    return awaitStatus(monitors, timeout, ClusterProcesses::activeClean);
  }

  /** Whether a status shows every PG active+clean. */
  static boolean activeClean(JsonNode status) {
    JsonNode pgmap = status.path("pgmap");
    JsonNode states = pgmap.path("pgs_by_state");
    return states.size() == 1
        && states.get(0).path("state_name").asText().equals("active+clean")
        && states.get(0).path("count").asLong() == pgmap.path("num_pgs").asLong();
  }

  /** The entry of {@code osd} in {@code osdmap.osds} of a status. */
  static JsonNode osd(JsonNode status, int id) {
    for (JsonNode o : status.path("osdmap").path("osds")) {
      if (o.path("osd").asInt() == id) {
        return o;
      }
    }
    throw new AssertionError("osd." + id + " is not in " + status);
  }
}
