package io.tidestore.osd.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.tidestore.store.api.JournalObserver;
import io.tidestore.store.api.ShardStats;
import io.tidestore.store.api.ShardStore;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * Per-shard store metrics (tag {@code shard}): the journal (records, bytes, and histograms of
 * record write latency, operations and bytes per record, i.e. per group-commit batch), the cleaner
 * (segments cleaned, bytes relocated, write amplification, waits for space) and space (free and
 * used bytes, free segments), health (read-only) and the online scrub. Counters come from {@link
 * ShardStats} snapshots taken on the owning reactors ({@link ShardStatsSampler}); the histograms
 * are recorded by each shard's journal on its reactor through a {@link JournalObserver}.
 */
public final class StoreMetrics {
  private StoreMetrics() {}

  /** Highest journal write latency a histogram resolves. */
  private static final long WRITE_HIGHEST_NANOS = HistogramFamily.LATENCY_HIGHEST_NANOS;

  /**
   * Registers the meters of {@code shards} shards whose stats {@code stats} takes, and returns the
   * observer each shard's journal must be given.
   */
  public static IntFunction<JournalObserver> bind(
      OsdMetrics metrics, int shards, Supplier<CompletableFuture<ShardStats[]>> stats) {
    // Micrometer holds function meters' state objects weakly.
    ShardStatsSampler sampler = metrics.keepAlive(new ShardStatsSampler(stats));
    MeterRegistry registry = metrics.registry();
    for (int shard = 0; shard < shards; shard++) {
      bindShard(registry, sampler, shard);
      bindHealth(registry, sampler, shard);
    }
    HistogramFamily latency =
        metrics.histogram(
            new HistogramFamily(
                "tidestore_journal_write_latency_seconds",
                "Journal record writes, submission to durable (both writes of the record)",
                1e-9,
                HistogramFamily.LATENCY_SECONDS));
    HistogramFamily ops =
        metrics.histogram(
            new HistogramFamily(
                "tidestore_journal_batch_ops",
                "Operations per journal record (group-commit batch), relocations included",
                1,
                HistogramFamily.powersOfTwo(1, 1024)));
    HistogramFamily bytes =
        metrics.histogram(
            new HistogramFamily(
                "tidestore_journal_batch_bytes",
                "Bytes per journal record (metadata and data blocks)",
                1,
                HistogramFamily.powersOfTwo(ShardStore.BLOCK_SIZE, 64L << 20)));
    JournalObserver[] observers = new JournalObserver[shards];
    for (int shard = 0; shard < shards; shard++) {
      String tag = Integer.toString(shard);
      // One writer: a shard's journal runs on the one reactor that owns the shard.
      RecordedHistogram l =
          latency.add(new RecordedHistogram(1, WRITE_HIGHEST_NANOS), "shard", tag);
      RecordedHistogram o = ops.add(new RecordedHistogram(1, 1 << 20), "shard", tag);
      RecordedHistogram b = bytes.add(new RecordedHistogram(1, 1L << 32), "shard", tag);
      observers[shard] =
          (opCount, byteCount, writeNanos) -> {
            l.record(0, writeNanos);
            o.record(0, opCount);
            b.record(0, byteCount);
          };
    }
    return shard -> observers[shard];
  }

  private static void bindShard(MeterRegistry registry, ShardStatsSampler sampler, int tag) {
    meter(
        registry,
        sampler,
        tag,
        Kind.COUNTER,
        "tidestore.journal.records",
        null,
        "Journal records written",
        ShardStats::records);
    meter(
        registry,
        sampler,
        tag,
        Kind.COUNTER,
        "tidestore.journal.flushes",
        null,
        "Shared fdatasyncs that made journal records durable (records / flushes = records per"
            + " cache flush; 0 with --journal-flush dsync)",
        ShardStats::journalFlushes);
    meter(
        registry,
        sampler,
        tag,
        Kind.COUNTER,
        "tidestore.journal.written",
        "bytes",
        "Journal record bytes written for user operations",
        ShardStats::journalBytesWritten);
    meter(
        registry,
        sampler,
        tag,
        Kind.COUNTER,
        "tidestore.store.user.written",
        "bytes",
        "Bytes clients asked to write",
        ShardStats::userBytesWritten);
    meter(
        registry,
        sampler,
        tag,
        Kind.COUNTER,
        "tidestore.cleaner.relocated",
        "bytes",
        "Record bytes the cleaner wrote relocating live blocks",
        ShardStats::cleanerBytesWritten);
    meter(
        registry,
        sampler,
        tag,
        Kind.COUNTER,
        "tidestore.cleaner.segments.cleaned",
        null,
        "Segments the cleaner reclaimed",
        ShardStats::segmentsCleaned);
    meter(
        registry,
        sampler,
        tag,
        Kind.COUNTER,
        "tidestore.store.space.waits",
        null,
        "Writes that waited for the cleaner to free space",
        ShardStats::spaceWaits);
    meter(
        registry,
        sampler,
        tag,
        Kind.COUNTER,
        "tidestore.store.space.wait",
        "seconds",
        "Time writes waited for space",
        s -> s.spaceWaitNanos() / 1e9);
    meter(
        registry,
        sampler,
        tag,
        Kind.COUNTER,
        "tidestore.store.checkpoints",
        null,
        "Index checkpoints written since mount",
        ShardStats::checkpoints);
    meter(
        registry,
        sampler,
        tag,
        Kind.GAUGE,
        "tidestore.store.write.amplification",
        null,
        "(journal + cleaner bytes) / user bytes since mount",
        ShardStats::writeAmplification);
    meter(
        registry,
        sampler,
        tag,
        Kind.GAUGE,
        "tidestore.store.space.wait.max",
        "seconds",
        "Longest wait of a write for space",
        s -> s.spaceWaitMaxNanos() / 1e9);
    meter(
        registry,
        sampler,
        tag,
        Kind.GAUGE,
        "tidestore.store.segments",
        null,
        "Segments in the shard",
        ShardStats::segmentsTotal);
    meter(
        registry,
        sampler,
        tag,
        Kind.GAUGE,
        "tidestore.store.segments.free",
        null,
        "Segments free for new records",
        ShardStats::segmentsFree);
    meter(
        registry,
        sampler,
        tag,
        Kind.GAUGE,
        "tidestore.store.capacity",
        "bytes",
        "Bytes of data users can store: the segments less the cleaner's reserve and slack",
        s -> (double) s.capacityBytes());
    meter(
        registry,
        sampler,
        tag,
        Kind.GAUGE,
        "tidestore.store.free",
        "bytes",
        "Bytes of free segments",
        s -> (double) s.segmentsFree() * s.segmentBytes());
    meter(
        registry,
        sampler,
        tag,
        Kind.GAUGE,
        "tidestore.store.used",
        "bytes",
        "Bytes of live blocks (referenced by the index)",
        s -> (double) s.liveBlocks() * ShardStore.BLOCK_SIZE);
    meter(
        registry,
        sampler,
        tag,
        Kind.GAUGE,
        "tidestore.store.objects",
        null,
        "Objects in the shard",
        ShardStats::objects);
    meter(
        registry,
        sampler,
        tag,
        Kind.GAUGE,
        "tidestore.store.index",
        "bytes",
        "Heap and off-heap bytes of the object index",
        ShardStats::indexBytes);
  }

  /** Read-only state and the online scrub: what docs/reliability.md says to watch. */
  private static void bindHealth(MeterRegistry registry, ShardStatsSampler sampler, int tag) {
    meter(
        registry,
        sampler,
        tag,
        Kind.GAUGE,
        "tidestore.shard.read.only",
        null,
        "1 when an I/O error turned the shard read-only (reason in /status), else 0",
        s -> s.readOnly() ? 1 : 0);
    meter(
        registry,
        sampler,
        tag,
        Kind.COUNTER,
        "tidestore.store.checkpoints.deferred",
        null,
        "Checkpoints that found the file system full (ENOSPC) and were retried later",
        ShardStats::checkpointsDeferred);
    meter(
        registry,
        sampler,
        tag,
        Kind.GAUGE,
        "tidestore.scrub.running",
        null,
        "1 while a scrub pass runs",
        s -> s.scrub().running() ? 1 : 0);
    meter(
        registry,
        sampler,
        tag,
        Kind.GAUGE,
        "tidestore.scrub.progress",
        "ratio",
        "Share of the current (or last) pass's blocks checked",
        s ->
            s.scrub().passBlocksTotal() == 0
                ? 0
                : Math.min(1.0, (double) s.scrub().passBlocksDone() / s.scrub().passBlocksTotal()));
    meter(
        registry,
        sampler,
        tag,
        Kind.COUNTER,
        "tidestore.scrub.passes",
        null,
        "Scrub passes completed since mount",
        s -> s.scrub().passes());
    meter(
        registry,
        sampler,
        tag,
        Kind.COUNTER,
        "tidestore.scrub.checked",
        "bytes",
        "Bytes the scrub read and checked since mount",
        s -> s.scrub().bytesChecked());
    meter(
        registry,
        sampler,
        tag,
        Kind.COUNTER,
        "tidestore.scrub.errors",
        null,
        "Damaged blocks and index faults the scrub found since mount",
        s -> s.scrub().errors());
    meter(
        registry,
        sampler,
        tag,
        Kind.GAUGE,
        "tidestore.scrub.rate",
        "bytes_per_second",
        "The scrub's configured read rate",
        s -> s.scrub().rateBytesPerSecond());
  }

  private enum Kind {
    COUNTER,
    GAUGE
  }

  private static void meter(
      MeterRegistry registry,
      ShardStatsSampler sampler,
      int shard,
      Kind kind,
      String name,
      String unit,
      String help,
      ToDoubleFunction<ShardStats> field) {
    ToDoubleFunction<ShardStatsSampler> value = s -> s.value(shard, field);
    String tag = Integer.toString(shard);
    if (kind == Kind.COUNTER) {
      FunctionCounter.builder(name, sampler, value)
          .baseUnit(unit)
          .description(help)
          .tags("shard", tag)
          .register(registry);
    } else {
      Gauge.builder(name, sampler, value)
          .baseUnit(unit)
          .description(help)
          .tags("shard", tag)
          .register(registry);
    }
  }
}
