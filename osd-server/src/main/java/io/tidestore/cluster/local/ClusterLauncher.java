package io.tidestore.cluster.local;

import io.tidestore.cluster.client.MonAddresses;
import io.tidestore.cluster.client.MonClient;
import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.pgstats.PgSummary;
import io.tidestore.cluster.tls.TlsLinks;
import io.tidestore.cluster.wire.LinkSecurity;
import io.tidestore.launch.SelfLauncher;
import io.tidestore.osd.security.TlsInit;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code tidestore cluster up|down}: starts monitors, waits for their quorum to create the cluster,
 * starts OSDs, waits until the map has them all up; stops them OSDs first. Each daemon is this same
 * program in a process of its own ({@link SelfLauncher}: the same jar and JVM flags), its output in
 * {@code DIR/NAME.log}, detached with {@code setsid} so a closed terminal spares it.
 */
public final class ClusterLauncher {
  private static final Duration MON_WAIT = Duration.ofSeconds(60);
  private static final Duration OSD_WAIT = Duration.ofSeconds(120);
  private static final Duration STOP_WAIT = Duration.ofSeconds(30);

  /** The client {@code cluster up --tls} issues a certificate to, and its validity. */
  private static final String ADMIN = "admin";

  private static final Duration CERTIFICATE_VALIDITY = Duration.ofDays(825);

  private final Path dir;
  private final PrintStream out;

  public ClusterLauncher(Path dir, PrintStream out) {
    this.dir = dir.toAbsolutePath().normalize();
    this.out = out;
  }

  /**
   * Starts {@code mons} monitors and {@code osds} OSDs, with {@code tls} every one under {@code
   * --tls require --tls-verify-peer} with certificates of {@code DIR/pki} ({@code tls init}, client
   * {@code admin}); returns what it wrote to cluster.json.
   */
  public LocalCluster up(int mons, int osds, boolean tls) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Path pki = dir.resolve("pki");
    Path certificates = tls ? issueCertificates(pki) : null;
    List<String> tlsFlags =
        tls
            ? List.of("--tls", "require", "--tls-verify-peer", "--tls-certificates", pki.toString())
            : List.of();
    List<LocalCluster.Mon> monPorts = new ArrayList<>();
    if (Files.exists(dir.resolve(LocalCluster.FILE))) {
      LocalCluster before = LocalCluster.read(dir);
      for (LocalCluster.Daemon d : before.daemons()) {
        if (d.process().isPresent()) {
          throw new IOException(d.name() + " (pid " + d.pid() + ") still runs: cluster down first");
        }
      }
      if (before.mons().size() != mons) {
        throw new IOException(
            dir + " holds a cluster of " + before.mons().size() + " monitors, not " + mons);
      }
      monPorts.addAll(before.mons()); // the monitors' Raft group names these addresses
    } else {
      for (int i = 0; i < mons; i++) {
        monPorts.add(new LocalCluster.Mon(String.valueOf((char) ('a' + i)), MonPortPair.pick()));
      }
    }
    List<String> peers = new ArrayList<>();
    List<String> addresses = new ArrayList<>();
    for (LocalCluster.Mon m : monPorts) {
      peers.add(m.id() + "=127.0.0.1:" + m.port());
      addresses.add("127.0.0.1:" + m.port());
    }
    String monitors = String.join(",", addresses);
    List<LocalCluster.Daemon> daemons = new ArrayList<>();
    for (LocalCluster.Mon m : monPorts) {
      Path data = dir.resolve("mon." + m.id());
      daemons.add(
          start(
              "mon." + m.id(),
              data,
              List.of(
                  "mon",
                  "--id",
                  m.id(),
                  "--data",
                  data.toString(),
                  "--listen",
                  "127.0.0.1:" + m.port(),
                  "--peers",
                  String.join(",", peers),
                  "--metrics-port",
                  "0",
                  "--failure-domain",
                  "osd"),
              tlsFlags));
    }
    new LocalCluster(monitors, monPorts, daemons, certificates).write(dir);
    LinkSecurity links =
        certificates == null ? LinkSecurity.PLAINTEXT : TlsLinks.client(certificates);
    try (MonClient client = new MonClient(MonAddresses.parse(monitors), links, MON_WAIT)) {
      ClusterMap map =
          awaitMap(client, m -> m.initialized(), MON_WAIT, "the monitors to form a quorum");
      out.println("monitors up: " + monitors + " (cluster " + map.fsid() + ")");
      for (int i = 0; i < osds; i++) {
        daemons.add(startOsd("osd." + i, monitors, tlsFlags));
        new LocalCluster(monitors, monPorts, daemons, certificates).write(dir);
      }
      map = awaitMap(client, m -> m.numUp() >= osds, OSD_WAIT, osds + " OSDs to be up");
      LocalCluster cluster = new LocalCluster(monitors, monPorts, daemons, certificates);
      cluster.write(dir);
      report(cluster, map);
      awaitActive(client, map);
      return cluster;
    }
  }

  /** Starts OSD {@code name} (its data in {@code DIR/name}) with the cluster's small defaults. */
  private LocalCluster.Daemon startOsd(String name, String monitors, List<String> tlsFlags)
      throws IOException {
    Path data = dir.resolve(name);
    return start(
        name,
        data,
        List.of(
            "osd",
            "--mon",
            monitors,
            "--data",
            data.toString(),
            "--listen",
            "127.0.0.1",
            "--port",
            "0",
            "--nbd-port",
            "0",
            "--metrics-port",
            "0",
            "--shards",
            "2",
            "--shard-size",
            "256m",
            "--cache-size",
            "256m",
            "--reactors",
            "1",
            "--cpu-policy",
            "none"),
        tlsFlags);
  }

  /**
   * Starts OSD daemon {@code name} of the cluster in this directory again (after it died), with the
   * arguments {@code up} gave it, and records its new pid in cluster.json; the cluster as written.
   */
  public LocalCluster restartOsd(String name) throws IOException {
    LocalCluster cluster = LocalCluster.read(dir);
    List<String> tlsFlags =
        cluster.certificates() == null
            ? List.of()
            : List.of(
                "--tls",
                "require",
                "--tls-verify-peer",
                "--tls-certificates",
                dir.resolve("pki").toString());
    LocalCluster.Daemon started = startOsd(name, cluster.monitors(), tlsFlags);
    List<LocalCluster.Daemon> daemons = new ArrayList<>();
    for (LocalCluster.Daemon d : cluster.daemons()) {
      daemons.add(d.name().equals(name) ? started : d);
    }
    LocalCluster updated =
        new LocalCluster(cluster.monitors(), cluster.mons(), daemons, cluster.certificates());
    updated.write(dir);
    return updated;
  }

  private void report(LocalCluster cluster, ClusterMap map) {
    out.println("cluster up in " + dir + " (map epoch " + map.epoch() + "):");
    for (LocalCluster.Daemon d : cluster.daemons()) {
      out.println("  " + d.name() + "  pid " + d.pid() + "  log " + d.log());
    }
    map.osds()
        .values()
        .forEach(
            o ->
                out.println(
                    "  osd."
                        + o.id()
                        + "  object "
                        + o.address()
                        + "  metrics "
                        + (cluster.certificates() == null ? "http://" : "https://")
                        + o.adminAddress()
                        + "/metrics"));
    out.println("reach it with:");
    out.println("  export TIDESTORE_MON=" + cluster.monitors());
    if (cluster.certificates() != null) {
      out.println("  export TIDESTORE_TLS_CERTIFICATES=" + cluster.certificates());
    }
    out.println("  tidestore status            (or: tidestore status --dir " + dir + ")");
    out.println("  tidestore pool ls");
    out.println("  tidestore cluster down --dir " + dir);
  }

  /** Stops every daemon of cluster.json: OSDs first, then monitors; SIGKILL after 30 s. */
  public void down() throws IOException, InterruptedException {
    LocalCluster cluster = LocalCluster.read(dir);
    List<LocalCluster.Daemon> order = new ArrayList<>();
    cluster.daemons().stream().filter(d -> d.name().startsWith("osd.")).forEach(order::add);
    cluster.daemons().stream().filter(d -> !d.name().startsWith("osd.")).forEach(order::add);
    for (LocalCluster.Daemon d : order) {
      var process = d.process();
      if (process.isEmpty()) {
        out.println(d.name() + " was not running");
        continue;
      }
      process.get().destroy();
      try {
        process.get().onExit().get(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        out.println(d.name() + " stopped");
      } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
        process.get().destroyForcibly();
        out.println(d.name() + " did not stop within " + STOP_WAIT.toSeconds() + " s: killed");
      }
    }
  }

  /**
   * {@code tls init} in {@code pki}: a CA and a server certificate for loopback and this host (kept
   * when there), and the client {@code admin}; returns that client's directory.
   */
  private Path issueCertificates(Path pki) throws IOException {
    try {
      TlsInit.run(
          pki,
          TlsInit.defaultSans(),
          List.of(ADMIN),
          CERTIFICATE_VALIDITY,
          note -> out.println("tls init: " + note));
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot issue certificates in " + pki + ": " + e.getMessage(), e);
    }
    return TlsInit.clientDir(pki, ADMIN);
  }

  private LocalCluster.Daemon start(String name, Path data, List<String> args, List<String> tls)
      throws IOException {
    Path log = dir.resolve(name + ".log");
    List<String> command = new ArrayList<>();
    if (Files.isExecutable(Path.of("/usr/bin/setsid"))) {
      command.add("/usr/bin/setsid");
    }
    command.addAll(SelfLauncher.command());
    command.addAll(args);
    command.addAll(tls);
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .start();
    out.println("started " + name + " (pid " + process.pid() + ", log " + log + ")");
    return new LocalCluster.Daemon(name, process.pid(), data, log);
  }

  /**
   * Waits until every PG serves I/O (peered: the cluster is usable when {@code up} returns) when
   * there are OSDs enough for every pool's min_size; prints the PG states either way.
   */
  private void awaitActive(MonClient client, ClusterMap map)
      throws IOException, InterruptedException {
    boolean possible = map.pools().values().stream().allMatch(p -> p.minSize() <= map.numUp());
    PgSummary pgs = possible ? client.awaitPgs(p -> p.inactive() == 0, OSD_WAIT) : client.pgStats();
    StringBuilder states = new StringBuilder();
    pgs.byState()
        .forEach(
            (state, n) ->
                states.append(states.isEmpty() ? "" : ", ").append(n).append(' ').append(state));
    out.println("pgs: " + states + (possible ? "" : " (fewer OSDs up than a pool's min_size)"));
  }

  private static ClusterMap awaitMap(
      MonClient client, java.util.function.Predicate<ClusterMap> done, Duration wait, String what)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    IOException last = null;
    while (System.nanoTime() < deadline) {
      try {
        ClusterMap map = client.fetchMap();
        if (done.test(map)) {
          return map;
        }
      } catch (IOException e) {
        last = e;
      }
      // Daemons take seconds to start; asking twice a second costs nothing.
      TimeUnit.MILLISECONDS.sleep(500);
    }
    throw new IOException(
        "gave up waiting for "
            + what
            + " after "
            + wait.toSeconds()
            + " s"
            + (last == null ? "" : ": " + last.getMessage())
            + "; see the logs in the cluster dir");
  }
}
