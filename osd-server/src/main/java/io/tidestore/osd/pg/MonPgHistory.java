package io.tidestore.osd.pg;

import io.tidestore.cluster.client.MonClient;
import io.tidestore.cluster.pghistory.PgActivation;
import io.tidestore.cluster.pghistory.PgActivations;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.cluster.wire.PgHistoryMessages;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * {@link PgHistory} through the monitors, batched: what the PGs ask while a request is out goes in
 * the next one, so a new map that makes every PG peer at once costs a few round trips to the
 * monitors, not one per PG (Ceph batches the same way through the OSD's {@code up_thru}). Each kind
 * of request has at most one in flight, on a virtual thread (the client blocks).
 */
public final class MonPgHistory implements PgHistory, AutoCloseable {
  private final MonClient monitors;
  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
  private final Object lock = new Object();

  // Guarded by lock.
  private final Map<PgId, List<CompletableFuture<PgActivation>>> lookups = new LinkedHashMap<>();
  private final Map<PgId, Pending> records = new LinkedHashMap<>();
  private boolean lookingUp;
  private boolean recording;

  /** A record waiting to be sent: the newest activation asked for the PG, and who waits. */
  private static final class Pending {
    PgActivation activation;
    final List<CompletableFuture<Boolean>> waiting = new ArrayList<>();

    Pending(PgActivation activation) {
      this.activation = activation;
    }
  }

  public MonPgHistory(MonClient monitors) {
    this.monitors = monitors;
  }

  @Override
  public CompletableFuture<PgActivation> lookup(PgId pg) {
    CompletableFuture<PgActivation> found = new CompletableFuture<>();
    synchronized (lock) {
      lookups.computeIfAbsent(pg, p -> new ArrayList<>()).add(found);
      if (!lookingUp) {
        lookingUp = true;
        threads.execute(this::sendLookups);
      }
    }
    return found;
  }

  @Override
  public CompletableFuture<Boolean> record(PgId pg, PgActivation activation) {
    CompletableFuture<Boolean> kept = new CompletableFuture<>();
    synchronized (lock) {
      Pending pending = records.computeIfAbsent(pg, p -> new Pending(activation));
      if (activation.epoch() >= pending.activation.epoch()) {
        pending.activation = activation; // a newer round of the same PG: its write set counts
      }
      pending.waiting.add(kept);
      if (!recording) {
        recording = true;
        threads.execute(this::sendRecords);
      }
    }
    return kept;
  }

  private void sendLookups() {
    while (true) {
      Map<PgId, List<CompletableFuture<PgActivation>>> batch;
      synchronized (lock) {
        batch = take(lookups);
        if (batch.isEmpty()) {
          lookingUp = false;
          return;
        }
      }
      try {
        List<PgId> pgs = new ArrayList<>(batch.keySet());
        List<PgActivation> found = monitors.pgHistory(pgs);
        for (int i = 0; i < pgs.size(); i++) {
          for (var f : batch.get(pgs.get(i))) {
            f.complete(found.get(i));
          }
        }
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        batch.values().forEach(fs -> fs.forEach(f -> f.completeExceptionally(e)));
      }
    }
  }

  private void sendRecords() {
    while (true) {
      Map<PgId, Pending> batch;
      synchronized (lock) {
        batch = take(records);
        if (batch.isEmpty()) {
          recording = false;
          return;
        }
      }
      TreeMap<PgId, PgActivation> command = new TreeMap<>(PgActivations.ORDER);
      batch.forEach((pg, p) -> command.put(pg, p.activation));
      try {
        Set<PgId> refused = new HashSet<>(monitors.pgActivated(command));
        batch.forEach((pg, p) -> p.waiting.forEach(f -> f.complete(!refused.contains(pg))));
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        batch.values().forEach(p -> p.waiting.forEach(f -> f.completeExceptionally(e)));
      }
    }
  }

  /** Moves the oldest waiting PGs (as many as one request carries) out of {@code waiting}. */
  private static <V> Map<PgId, V> take(Map<PgId, V> waiting) {
    Map<PgId, V> batch = new LinkedHashMap<>();
    var it = waiting.entrySet().iterator();
    while (it.hasNext() && batch.size() < PgHistoryMessages.MAX_PGS) {
      var e = it.next();
      batch.put(e.getKey(), e.getValue());
      it.remove();
    }
    return batch;
  }

  @Override
  public void close() {
    threads.shutdownNow();
  }
}
