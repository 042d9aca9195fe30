package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidestore.client.ClusterClient;
import io.tidestore.cluster.client.ClusterStatus;
import io.tidestore.cluster.client.MonAddresses;
import io.tidestore.cluster.client.MonClient;
import io.tidestore.cluster.local.MonPortPair;
import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.MapCommand;
import io.tidestore.cluster.pgstats.PgSummary;
import io.tidestore.cluster.wire.LinkSecurity;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the cluster tests share: monitors and cluster-mode OSDs as real processes of the jar, the
 * client commands ({@code status}, {@code pool}) run as processes where a test checks them and
 * their code run in this JVM where a test only needs what they do (polls, set-up), and free ports.
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
      restartOsds(List.of(id), extra);
      return osds.get(id);
    }

    /**
     * Starts each OSD of {@code ids} again on its data directory (plus {@code extra}), all at once,
     * then waits for each to register under its id.
     */
    void restartOsds(List<Integer> ids, String... extra) throws IOException, InterruptedException {
      for (int id : ids) {
        osds.put(id, startOsd(data.get(id), monitors, extra));
      }
      for (int id : ids) {
        int registered = awaitRegistered(osds.get(id));
        assertTrue(registered == id, "osd." + id + " came back as osd." + registered);
      }
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
    return startCluster(dir, count, monCount, List.of("--osd-heartbeat-grace", "2s"), osdExtra);
  }

  /**
   * {@link #startCluster(Path, int, int, String...)} with the monitors' own flags {@code monExtra}
   * (besides {@code --failure-domain osd}) instead of the tests' short heartbeat grace.
   */
  static Cluster startCluster(
      Path dir, int count, int monCount, List<String> monExtra, String... osdExtra)
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
      List<String> monFlags = new ArrayList<>(monExtra);
      monFlags.addAll(List.of("--failure-domain", "osd"));
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
                    monFlags.toArray(String[]::new)));
      }
      for (OsdProcess mon : cluster.mons().values()) {
        awaitMonReady(mon);
      }
      List<Path> data = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        data.add(dir.resolve("osd." + i));
      }
      addOsds(cluster, data, osdExtra);
      awaitMap(monitors, Duration.ofSeconds(30), m -> m.numUp() == count);
      return cluster;
    } catch (Exception | Error e) {
      cluster.close();
      throw e;
    }
  }

  /** Starts a new OSD of {@code cluster} on {@code data}; its id, once it registered. */
  static int addOsd(Cluster cluster, Path data, String... extra)
      throws IOException, InterruptedException {
    return addOsds(cluster, List.of(data), extra).get(0);
  }

  /**
   * Starts a new OSD of {@code cluster} on each of {@code data}, all at once, then waits for each
   * to register; their ids, in the order of {@code data}.
   */
  static List<Integer> addOsds(Cluster cluster, List<Path> data, String... extra)
      throws IOException, InterruptedException {
    List<OsdProcess> started = new ArrayList<>();
    try {
      for (Path d : data) {
        started.add(startOsd(d, cluster.monitors(), extra));
      }
      List<Integer> ids = new ArrayList<>();
      for (int i = 0; i < started.size(); i++) {
        int id = awaitRegistered(started.get(i));
        cluster.osds().put(id, started.get(i));
        cluster.data().put(id, data.get(i));
        ids.add(id);
      }
      return ids;
    } catch (IOException | InterruptedException | RuntimeException | Error e) {
      for (OsdProcess osd : started) {
        if (!cluster.osds().containsValue(osd)) {
          osd.close();
        }
      }
      throw e;
    }
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

  /**
   * Creates a pool as {@link #poolCreate} does, in this JVM (where the command is not what a test
   * is about, a JVM of its own per pool is only time); fails when the monitors refuse it.
   */
  static void createPool(String monitors, String name, int size, int minSize, int pgNum)
      throws IOException, InterruptedException {
    try (MonClient client = monClient(monitors)) {
      client.poolCreate(new MapCommand.PoolCreate(name, size, minSize, pgNum, null));
    }
  }

  /** A client of the monitors {@code monitors} over plaintext (requests fail after 30 s). */
  static MonClient monClient(String monitors) {
    return new MonClient(MonAddresses.parse(monitors), LinkSecurity.PLAINTEXT, COMMAND_TIMEOUT);
  }

  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);

  /** {@code tidestore status --mon MONITORS --format json}, parsed; fails on a non-zero exit. */
  static JsonNode status(String monitors) throws IOException, InterruptedException {
    Result r = run("status", "--mon", monitors, "--format", "json");
    assertTrue(r.exit() == 0, "status failed: " + r.output());
    String out = r.output();
    return JSON.readTree(out.substring(out.indexOf('{')));
  }

  /**
   * What {@link #status} prints, gathered in this JVM through {@code client} (the command's own
   * code, {@link ClusterStatus}, without a JVM per look).
   */
  private static JsonNode status(MonClient client, String monitors)
      throws IOException, InterruptedException {
    return JSON.readTree(ClusterStatus.gather(client, MonAddresses.parse(monitors)).json());
  }

  /**
   * Looks at the status (in this JVM, every {@link #POLL}) until {@code until} holds (the monitors'
   * map moves on their own clock: grace, down-out interval) and returns it; fails with the last
   * status at the deadline.
   */
  static JsonNode awaitStatus(String monitors, Duration timeout, Predicate<JsonNode> until)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    try (MonClient client = monClient(monitors)) {
      JsonNode last = status(client, monitors);
      while (!until.test(last)) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("status never matched within " + timeout + ": " + last);
        }
        TimeUnit.MILLISECONDS.sleep(POLL.toMillis());
        last = status(client, monitors);
      }
      return last;
    }
  }

  /**
   * {@link #awaitStatus}, then the same of the {@code status --format json} command, whose output
   * is what the caller checks: the status it printed.
   */
  static JsonNode awaitStatusCommand(String monitors, Duration timeout, Predicate<JsonNode> until)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    awaitStatus(monitors, timeout, until);
    JsonNode printed = status(monitors);
    while (!until.test(printed)) { // it moved on between the two looks: look again
      if (System.nanoTime() > deadline) {
        throw new AssertionError("status never printed a match within " + timeout + ": " + printed);
      }
      TimeUnit.MILLISECONDS.sleep(POLL.toMillis());
      printed = status(monitors);
    }
    return printed;
  }

  /** How often a wait on the monitors' status looks again. */
  static final Duration POLL = Duration.ofMillis(200);

  /** Waits until the monitors' map satisfies {@code until} (each map is pushed to the client). */
  static void awaitMap(String monitors, Duration timeout, Predicate<ClusterMap> until)
      throws IOException, InterruptedException {
    try (ClusterClient client =
        ClusterClient.connect(
            MonAddresses.parse(monitors), LinkSecurity.PLAINTEXT, null, COMMAND_TIMEOUT)) {
      assertTrue(client.awaitMap(until, timeout), "map never matched within " + timeout);
    }
  }

  /**
   * Waits until every PG of the cluster is active+clean as the monitors report it (each PG's
   * primary peered and recovered it on its own: no client op is needed to start recovery).
   */
  static void awaitActiveClean(String monitors, Duration timeout)
      throws IOException, InterruptedException {
    try (MonClient client = monClient(monitors)) {
      PgSummary pgs = client.awaitPgs(PgSummary::allClean, timeout);
      assertTrue(pgs.allClean(), "not active+clean within " + timeout + ": " + pgs.byState());
    }
  }

  /**
   * {@code tidestore cluster up --dir DIR ARGS...}, which must start {@code mons} monitors and
   * {@code osds} OSDs (their pids go into {@code pids} as it says them, for the caller to stop
   * whatever happens), say how to reach them (the exports, {@code cluster.json}), and leave a
   * cluster that {@code status --dir} finds with every OSD up and in, healthy with 3 OSDs or more
   * (pool rbd has size 3).
   *
   * @return the command's output lines and the status it found
   */
  static ClusterUp clusterUp(
      Path dir, int mons, int osds, boolean tls, List<Long> pids, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("cluster", "up", "--dir", dir.toString()));
    command.addAll(Arrays.asList(args));
    OsdProcess up = OsdProcess.start(command.toArray(String[]::new));
    int exit = up.awaitExit(Duration.ofMinutes(3));
    pids.addAll(startedPids(up));
    assertEquals(0, exit, up.output());
    assertEquals(mons + osds, pids.size(), "the monitors and the OSDs: " + up.output());
    assertTrue(up.output().contains("export TIDESTORE_MON=127.0.0.1:"), up.output());
    assertEquals(tls, up.output().contains("export TIDESTORE_TLS_CERTIFICATES="), up.output());
    assertTrue(Files.isRegularFile(dir.resolve("cluster.json")));

    Result status = run("status", "--dir", dir.toString(), "--format", "json");
    assertEquals(0, status.exit(), status.output());
    String out = status.output();
    JsonNode s = JSON.readTree(out.substring(out.indexOf('{')));
    assertEquals(osds, s.path("osdmap").path("num_up_osds").asInt(), s.toString());
    assertEquals(osds, s.path("osdmap").path("num_in_osds").asInt(), s.toString());
    if (osds >= 3) { // pool rbd has size 3: fewer OSDs leave its PGs undersized (HEALTH_WARN)
      assertEquals("HEALTH_OK", s.path("health").path("status").asText(), s.toString());
    }
    return new ClusterUp(up.lines(), s);
  }

  /** What {@link #clusterUp} printed, and the status it found then. */
  record ClusterUp(List<String> lines, JsonNode status) {}

  private static final Pattern PID = Pattern.compile("pid (\\d+)");

  /** The pids of the daemons {@code command} (cluster up, thrash) said it started. */
  static List<Long> startedPids(OsdProcess command) {
    List<Long> pids = new ArrayList<>();
    for (String line : command.lines()) {
      Matcher m = PID.matcher(line);
      if (line.startsWith("started ") && m.find()) {
        pids.add(Long.parseLong(m.group(1)));
      }
    }
    return pids;
  }

  /** {@code tidestore cluster down --dir DIR}, which must stop every one of {@code pids}. */
  static void clusterDown(Path dir, List<Long> pids) throws IOException, InterruptedException {
    Result down = run("cluster", "down", "--dir", dir.toString());
    assertEquals(0, down.exit(), down.output());
    assertTrue(down.output().contains("mon.a stopped"), down.output());
    for (long pid : pids) {
      assertFalse(
          ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false),
          "pid " + pid + " still runs after cluster down");
    }
  }

  /** Kills what is left of {@code pids} (the daemons are detached: never leave one behind). */
  static void destroy(List<Long> pids) {
    for (long pid : pids) {
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }
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
