package io.tidestore.cluster.thrash;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.tidestore.client.ClusterClient;
import io.tidestore.cluster.client.MonAddresses;
import io.tidestore.cluster.local.ClusterLauncher;
import io.tidestore.cluster.local.LocalCluster;
import io.tidestore.cluster.pgstats.PgSummary;
import io.tidestore.cluster.tls.TlsLinks;
import io.tidestore.cluster.wire.LinkSecurity;
import io.tidestore.osd.ops.ObjectOpsException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Kills a random OSD of a local cluster with SIGKILL, lets the cluster run without it, restarts it,
 * waits until it is up again, and so on for the time given, while writers keep replacing objects
 * and reading others back. A read must hold the newest acknowledged version of its object (or the
 * one whose write was in doubt when its client gave up): an older one is a lost or stale write, and
 * anything else is corruption. At the end every object is checked once more. One OSD is down at a
 * time, so a pool of size 3 and min_size 2 keeps taking writes throughout.
 */
public final class Thrasher {
  private static final int WRITERS = 4;

  private final Path dir;
  private final PrintStream out;
  private final Random random;
  private final Duration duration;
  private final String pool;
  private final int objects;
  private final long[] acked;
  private final long[] doubtful;
  private final AtomicLong writes = new AtomicLong();
  private final AtomicLong reads = new AtomicLong();
  private final List<String> violations = new ArrayList<>();
  private volatile boolean stopping;

  public Thrasher(
      Path dir, PrintStream out, long seed, Duration duration, String pool, int objects) {
    this.dir = dir;
    this.out = out;
    this.random = new Random(seed);
    this.duration = duration;
    this.pool = pool;
    this.objects = objects;
    this.acked = new long[objects];
    this.doubtful = new long[objects];
    java.util.Arrays.fill(doubtful, -1);
  }

  /** Runs; returns the violations found (none is a pass). */
  public List<String> run() throws IOException, InterruptedException {
    LocalCluster cluster = LocalCluster.read(dir);
    ClusterLauncher launcher = new ClusterLauncher(dir, out);
    LinkSecurity links =
        cluster.certificates() == null
            ? LinkSecurity.PLAINTEXT
            : TlsLinks.client(cluster.certificates());
    try (ClusterClient client =
        ClusterClient.connect(
            MonAddresses.parse(cluster.monitors()),
            links,
            cluster.certificates() == null
                ? null
                : io.tidestore.osd.security.TlsContexts.client(
                    io.tidestore.osd.security.CertificateFiles.client(cluster.certificates()),
                    io.netty.handler.ssl.SslProvider.JDK),
            Duration.ofMinutes(3))) {
      adoptEarlierRun(client);
      List<Thread> writers = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        int slot = w;
        writers.add(
            Thread.ofPlatform().name("thrash-writer-" + w).start(() -> write(client, slot)));
      }
      long end = System.nanoTime() + duration.toNanos();
      int kills = 0;
      while (System.nanoTime() < end) {
        sleep(3000 + random.nextInt(5000), end);
        if (System.nanoTime() >= end) {
          break;
        }
        List<LocalCluster.Daemon> osds = new ArrayList<>();
        for (LocalCluster.Daemon d : LocalCluster.read(dir).daemons()) {
          if (d.name().startsWith("osd.") && d.process().isPresent()) {
            osds.add(d);
          }
        }
        if (osds.isEmpty()) {
          break;
        }
        LocalCluster.Daemon victim = osds.get(random.nextInt(osds.size()));
        out.println("thrash: SIGKILL " + victim.name() + " (pid " + victim.pid() + ")");
        victim.process().ifPresent(ProcessHandle::destroyForcibly);
        kills++;
        sleep(4000 + random.nextInt(6000), Long.MAX_VALUE);
        launcher.restartOsd(victim.name());
        out.println("thrash: restarted " + victim.name());
        int expected = osds.size();
        if (!client.awaitMap(m -> m.numUp() >= expected, Duration.ofMinutes(2))) {
          out.println("thrash: " + victim.name() + " not up in the map after 2 minutes");
        }
      }
      stopping = true;
      for (Thread t : writers) {
        t.join(TimeUnit.MINUTES.toMillis(4));
      }
      for (int o = 0; o < objects; o++) {
        check(client, o);
      }
      awaitActiveClean(client);
      out.println(
          "thrash: "
              + kills
              + " OSD kills and restarts, "
              + writes.get()
              + " writes and "
              + reads.get()
              + " reads verified, "
              + violations.size()
              + " violations");
      return violations;
    }
  }

  /**
   * After the last restart the cluster must come back to every PG active+clean on its own (the
   * monitors' view, from the primaries' reports); a violation when it does not within 3 minutes.
   */
  private void awaitActiveClean(ClusterClient client) throws IOException, InterruptedException {
    long start = System.nanoTime();
    PgSummary pgs = client.awaitPgs(PgSummary::allClean, Duration.ofMinutes(3));
    if (!pgs.allClean()) {
      violation(
          "the cluster is not active+clean 3 minutes after the last restart: " + pgs.byState());
      return;
    }
    out.println(
        "thrash: every PG active+clean "
            + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)
            + " ms after the writers stopped");
  }

  /** The thrasher's schedule: a pause between its kills (not a wait for a condition). */
  private void sleep(long millis, long endNanos) throws InterruptedException {
    long left = Math.min(millis, TimeUnit.NANOSECONDS.toMillis(endNanos - System.nanoTime()));
    if (left > 0) {
      Thread.sleep(left);
    }
  }

  /**
   * Starts each object's history from what the pool holds: an earlier run on this cluster left its
   * objects at versions this run must go on from (it would otherwise read them as versions never
   * written). An object that holds no version of itself is a violation already.
   */
  private void adoptEarlierRun(ClusterClient client) throws InterruptedException {
    int adopted = 0;
    for (int o = 0; o < objects; o++) {
      try {
        long found = readVersion(client, o);
        if (found < 0) {
          violation(VerifiedObjects.name(o) + " holds no version of it (corrupt) before the run");
        } else {
          acked[o] = found;
          adopted++;
        }
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof ObjectOpsException x
            && x.code() == ObjectOpsException.Code.NOT_FOUND)) {
          violation(o + ": read before the run failed: " + e.getCause());
        }
      } catch (TimeoutException e) {
        violation(o + ": read before the run did not complete in 4 minutes");
      }
    }
    if (adopted > 0) {
      out.println("thrash: " + adopted + " objects go on from the versions an earlier run left");
    }
  }

  /** One writer: its objects are those with {@code object % WRITERS == slot}. */
  private void write(ClusterClient client, int slot) {
    Random r = new Random(slot * 7919L + 1);
    while (!stopping) {
      int o = slot + WRITERS * r.nextInt(Math.max(1, objects / WRITERS));
      if (o >= objects) {
        continue;
      }
      long version = Math.max(acked[o], doubtful[o]) + 1;
      try {
        VerifiedObjects.write(client, pool, o, version).get(4, TimeUnit.MINUTES);
        acked[o] = version;
        doubtful[o] = -1;
        writes.incrementAndGet();
      } catch (ExecutionException | TimeoutException e) {
        doubtful[o] = version; // it may or may not have been applied
        out.println(
            "thrash: write of " + VerifiedObjects.name(o) + " v" + version + " failed: " + e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      int other = slot + WRITERS * r.nextInt(Math.max(1, objects / WRITERS));
      if (other < objects) {
        check(client, other);
      }
    }
  }

  /** Reads object {@code o}: it must hold its newest acknowledged version or the one in doubt. */
  private void check(ClusterClient client, int o) {
    long expected = acked[o];
    long maybe = doubtful[o];
    long found;
    try {
      found = readVersion(client, o);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof ObjectOpsException x
          && x.code() == ObjectOpsException.Code.NOT_FOUND
          && expected == 0) {
        return; // never written
      }
      violation(o + ": read failed: " + e.getCause());
      return;
    } catch (TimeoutException e) {
      violation(o + ": read did not complete in 4 minutes");
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    reads.incrementAndGet();
    if (found < 0) {
      violation(VerifiedObjects.name(o) + " holds no version of it (corrupt)");
    } else if (found != expected && found != maybe && !(expected == 0 && found == 0)) {
      violation(
          VerifiedObjects.name(o)
              + " holds v"
              + found
              + ", acknowledged v"
              + expected
              + (maybe >= 0 ? " (v" + maybe + " in doubt)" : ""));
    }
  }

  /** The version object {@code o} holds, or -1 when it holds no version of itself. */
  private long readVersion(ClusterClient client, int o)
      throws ExecutionException, TimeoutException, InterruptedException {
    ByteBuf data =
        client
            .read(pool, VerifiedObjects.name(o), 0, VerifiedObjects.SIZE)
            .get(4, TimeUnit.MINUTES);
    try {
      return VerifiedObjects.versionOf(o, ByteBufUtil.getBytes(data));
    } finally {
      data.release();
    }
  }

  private void violation(String what) {
    synchronized (violations) {
      violations.add(what);
    }
    out.println("thrash: VIOLATION " + what);
  }
}
