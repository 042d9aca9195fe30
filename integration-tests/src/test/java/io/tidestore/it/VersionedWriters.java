package io.tidestore.it;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.tidestore.client.ClusterClient;
import io.tidestore.cluster.thrash.VerifiedObjects;
import io.tidestore.osd.ops.ObjectOpsException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Writers that keep replacing objects of one pool with versioned content while a test kills
 * processes, and check every read against what was acknowledged. Each writer owns its objects (one
 * write of an object at a time) and after each write reads another of its own objects back: the
 * read must hold the newest acknowledged version, or a newer one that was sent but not (yet)
 * acknowledged, and exactly that version's bytes: an older version is a lost write, anything else
 * is garbage.
 */
final class VersionedWriters implements AutoCloseable {
  private final ClusterClient client;
  private final String pool;
  private final int writers;
  private final long[] acked;
  private final long[] sent;
  private final List<String> violations = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private long acks; // guarded by this
  private long longestNanos; // guarded by this: the longest any one write or read took
  private volatile boolean stopping;

  /** Starts {@code writers} writers over {@code objects} objects (a multiple of writers). */
  VersionedWriters(ClusterClient client, String pool, int writers, int objects) {
    this.client = client;
    this.pool = pool;
    this.writers = writers;
    this.acked = new long[objects];
    this.sent = new long[objects];
    for (int w = 0; w < writers; w++) {
      int slot = w;
      threads.add(Thread.ofPlatform().name("it-writer-" + w).start(() -> run(slot)));
    }
  }

  private void run(int slot) {
    int mine = acked.length / writers;
    for (long round = 0; !stopping; round++) {
      int o = slot + writers * (int) (round % mine);
      long v = sent[o] + 1;
      sent[o] = v;
      try {
        long sentAt = System.nanoTime();
        VerifiedObjects.write(client, pool, o, v).get(5, TimeUnit.MINUTES);
        acked[o] = v;
        synchronized (this) {
          longestNanos = Math.max(longestNanos, System.nanoTime() - sentAt);
          acks++;
          notifyAll();
        }
      } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
        violation("write of " + VerifiedObjects.name(o) + " v" + v + " failed: " + e);
      } catch (InterruptedException e) {
        return;
      }
      check(slot + writers * (int) ((round + 1 + mine / 2) % mine));
    }
  }

  /** Reads object {@code o} (not being written) and checks it against what was acknowledged. */
  private void check(int o) {
    try {
      long sentAt = System.nanoTime();
      ByteBuf data =
          client
              .read(pool, VerifiedObjects.name(o), 0, VerifiedObjects.SIZE)
              .get(5, TimeUnit.MINUTES);
      synchronized (this) {
        longestNanos = Math.max(longestNanos, System.nanoTime() - sentAt);
      }
      long v;
      try {
        v = VerifiedObjects.versionOf(o, ByteBufUtil.getBytes(data));
      } finally {
        data.release();
      }
      if (v < 0) {
        violation(VerifiedObjects.name(o) + ": garbage (not one version of it)");
      } else if (v < acked[o] || v > sent[o]) {
        violation(
            VerifiedObjects.name(o)
                + ": read v"
                + v
                + ", acknowledged v"
                + acked[o]
                + ", sent v"
                + sent[o]);
      }
    } catch (ExecutionException e) {
      if (!(acked[o] == 0
          && ObjectOpsException.is(e.getCause(), ObjectOpsException.Code.NOT_FOUND))) {
        violation("read of " + VerifiedObjects.name(o) + " failed: " + e.getCause());
      }
    } catch (java.util.concurrent.TimeoutException e) {
      violation("read of " + VerifiedObjects.name(o) + " took over 5 minutes");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private synchronized void violation(String what) {
    violations.add(what);
  }

  /** Acknowledged writes so far. */
  synchronized long acks() {
    return acks;
  }

  /**
   * The longest any one write or read (that completed) waited for its answer so far: across a kill
   * of a PG's primary, how long client I/O to that PG stalled.
   */
  synchronized Duration longestWait() {
    return Duration.ofNanos(longestNanos);
  }

  /** Waits until {@code count} writes in all were acknowledged; false at the deadline. */
  synchronized boolean awaitAcks(long count, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (acks < count) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
    }
    return true;
  }

  /**
   * Stops the writers (each finishes its write in flight) and checks every object once more; the
   * violations seen, none being a pass.
   */
  List<String> stopAndCheck() throws InterruptedException {
    stopping = true;
    for (Thread t : threads) {
      t.join(TimeUnit.MINUTES.toMillis(6));
    }
    for (int o = 0; o < acked.length; o++) {
      check(o);
    }
    synchronized (this) {
      return new ArrayList<>(violations);
    }
  }

  @Override
  public void close() throws InterruptedException {
    stopping = true;
    for (Thread t : threads) {
      t.interrupt();
      t.join(10_000);
    }
  }
}
