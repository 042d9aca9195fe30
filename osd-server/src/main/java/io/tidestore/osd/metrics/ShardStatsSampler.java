package io.tidestore.osd.metrics;

import io.tidestore.store.api.ShardStats;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import java.util.logging.Logger;

/**
 * The shards' {@link ShardStats} for meters read on the scrape (or JMX) thread. A shard's counters
 * belong to its reactor, so a snapshot is taken there, on demand, by a task each reactor runs
 * between loop passes: the write path pays nothing, and a scrape sees one consistent snapshot per
 * shard. Snapshots younger than {@link #MAX_AGE_NANOS} are reused, so the many meters of one scrape
 * cost one hop per reactor. A reactor that does not answer within {@link #TIMEOUT_SECONDS} leaves
 * the previous snapshot in place (NaN before the first).
 */
final class ShardStatsSampler {
  private static final Logger LOG = Logger.getLogger(ShardStatsSampler.class.getName());
  static final long MAX_AGE_NANOS = 1_000_000_000L;
  static final long TIMEOUT_SECONDS = 2;

  private final Supplier<CompletableFuture<ShardStats[]>> source;
  private ShardStats[] latest; // guarded by this
  private long takenNanos; // guarded by this

  ShardStatsSampler(Supplier<CompletableFuture<ShardStats[]>> source) {
    this.source = source;
  }

  /** {@code field} of shard {@code shard}'s latest snapshot, or NaN if there is none. */
  synchronized double value(int shard, ToDoubleFunction<ShardStats> field) {
    long now = System.nanoTime();
    if (latest == null || now - takenNanos > MAX_AGE_NANOS) {
      refresh(now);
    }
    return latest == null || latest[shard] == null
        ? Double.NaN
        : field.applyAsDouble(latest[shard]);
  }

  private void refresh(long now) {
    try {
      latest = source.get().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      takenNanos = now;
    } catch (TimeoutException | ExecutionException e) {
      LOG.warning("shard stats not taken, keeping the previous ones: " + e);
      takenNanos = now; // do not retry on every meter of this scrape
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
