package io.tidestore.bench.store;

import io.tidestore.store.api.CleanerPolicy;
import io.tidestore.store.api.ExtentCacheHook;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ObjectStore;
import io.tidestore.store.api.ShardStats;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.engine.LogStore;
import io.tidestore.store.engine.StoreFormat;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.io.backend.IoQueues;
import io.tidestore.store.record.DeltaDescriptor;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Measurements of the store for docs/benchmarks.md and docs/memory.md, on real files and the real
 * I/O backend, through the store's API: mount time with a million objects, index bytes per extent,
 * and the cleaner at 90% full with each victim policy. They take minutes and hundreds of MiB, so
 * they are a program, not tests:
 *
 * <pre>bin/jmh --main io.tidestore.bench.store.StoreMeasurements mount|index|cleaner ...</pre>
 *
 * Files go under {@code -Dtidestore.bench.dir} (default {@code /var/tmp}); {@code
 * -Dtidestore.measure.overprovision=P} measures the cleaner with another headroom.
 */
public final class StoreMeasurements {
  private static final int DEPTH = 32;

  /** Issues {@code n} operations with {@code DEPTH} in flight; returns elapsed nanos. */
  interface Op {
    void issue(long i, io.tidestore.store.api.StoreCompletion<Void> done);
  }

  static long run(ShardStore s, IoQueue q, long n, Op op, long[] maxLatency) throws Exception {
    long[] inFlight = {0};
    long[] failures = {0};
    long start = System.nanoTime();
    long issued = 0;
    while (issued < n || inFlight[0] > 0) {
      while (issued < n && inFlight[0] < DEPTH) {
        inFlight[0]++;
        long t0 = System.nanoTime();
        op.issue(
            issued++,
            (v, e) -> {
              inFlight[0]--;
              if (e != null) {
                failures[0]++;
                System.out.println("FAILED: " + e.getMessage());
              }
              if (maxLatency != null) {
                maxLatency[0] = Math.max(maxLatency[0], System.nanoTime() - t0);
              }
            });
      }
      s.endOfPass();
      q.await(1_000_000);
    }
    if (failures[0] > 0) {
      throw new AssertionError(failures[0] + " operations failed");
    }
    return System.nanoTime() - start;
  }

  static void mountTimeWithOneMillionObjects() throws Exception {
    Path dir = createDirectory("measure-mount");
    try {
      StoreFormat.mkfs(dir, 1, 512L << 20, 8 << 20);
      StoreConfig cfg = StoreConfig.defaults();
      int objects = 1_000_000;
      try (ObjectStore store = LogStore.open(dir, cfg);
          IoQueue q = IoQueues.create(IoQueueConfig.defaults())) {
        ShardStore s = store.mountShard(0, q, ExtentCacheHook.NONE);
        MemorySegment empty = MemorySegment.ofArray(new byte[0]);
        long t =
            run(
                s,
                q,
                objects,
                (i, d) ->
                    s.write(new ObjectKey(1, String.format("rbd_data.%010d", i)), 0, empty, d),
                null);
        System.out.printf("created %d objects in %.1f s%n", objects, t / 1e9);
        long c0 = System.nanoTime();
        s.close();
        System.out.printf("close (final checkpoint) %.0f ms%n", (System.nanoTime() - c0) / 1e6);
      }
      for (int i = 0; i < 3; i++) {
        try (ObjectStore store = LogStore.open(dir, cfg);
            IoQueue q = IoQueues.create(IoQueueConfig.defaults())) {
          long m0 = System.nanoTime();
          ShardStore s = store.mountShard(0, q, ExtentCacheHook.NONE);
          long ms = (System.nanoTime() - m0) / 1_000_000;
          System.out.printf(
              "MEASURE mount with %d objects (checkpoint, no replay): %d ms%n",
              s.stats().objects(), ms);
          s.close();
        }
      }
    } finally {
      deleteRecursively(dir);
    }
  }

  static void indexBytesPerExtentAfterRandomOverwritesOfAFullImage() throws Exception {
    Path dir = createDirectory("measure-index");
    // 16 images of 4 MiB by default (figures since issue 19 began); -Dtidestore.measure.images=256
    // takes 1 GiB, where the index's last, partly used chunk of native memory no longer shows.
    int images = Integer.getInteger("tidestore.measure.images", 16);
    try {
      StoreFormat.mkfs(dir, 1, Math.max(160L << 20, images * (10L << 20)), 2 << 20);
      try (ObjectStore store = LogStore.open(dir, StoreConfig.defaults());
          IoQueue q = IoQueues.create(IoQueueConfig.defaults())) {
        ShardStore s = store.mountShard(0, q, ExtentCacheHook.NONE);
        byte[] chunk = new byte[1 << 20];
        new Random(1).nextBytes(chunk);
        run(
            s,
            q,
            images * 4L,
            (i, d) ->
                s.write(
                    new ObjectKey(1, "rbd_data.img." + (i / 4)),
                    (i % 4) << 20,
                    MemorySegment.ofArray(chunk),
                    d),
            null);
        Random r = new Random(2);
        byte[] block = new byte[4096];
        run(
            s,
            q,
            images * 1024L * 2,
            (i, d) ->
                s.write(
                    new ObjectKey(1, "rbd_data.img." + r.nextInt(images)),
                    (long) r.nextInt(1024) * 4096,
                    MemorySegment.ofArray(block),
                    d),
            null);
        ShardStats st = s.stats();
        System.out.printf(
            "MEASURE index: %d bytes for %d extents = %.1f B per 4 KiB extent%n",
            st.indexBytes(), st.liveBlocks(), (double) st.indexBytes() / st.liveBlocks());
        s.close();
      }
    } finally {
      deleteRecursively(dir);
    }
  }

  static void cleanerAtNinetyPercentFull() throws Exception {
    // Warm the JIT up on a throwaway store first: otherwise the first policy's empty-store base is
    // measured cold and the second's warm, and their ratios are not comparable.
    measureCleaner(CleanerPolicy.GREEDY, true);
    for (CleanerPolicy policy : CleanerPolicy.values()) {
      measureCleaner(policy, false);
    }
  }

  private static void measureCleaner(CleanerPolicy policy, boolean warmUpOnly) throws Exception {
    Path dir = createDirectory("measure-cleaner");
    long shardBytes = 128L << 20;
    int seg = 2 << 20;
    int n = 20_000;
    try {
      StoreFormat.mkfs(dir, 1, shardBytes, seg);
      // -Dtidestore.measure.overprovision=P measures another headroom than the default.
      StoreConfig cfg =
          StoreConfig.defaults()
              .withCleanerPolicy(policy)
              .withOverprovisionPercent(
                  Integer.getInteger(
                      "tidestore.measure.overprovision",
                      StoreConfig.DEFAULT_OVERPROVISION_PERCENT));
      try (ObjectStore store = LogStore.open(dir, cfg);
          IoQueue q = IoQueues.create(IoQueueConfig.defaults())) {
        ShardStore s = store.mountShard(0, q, ExtentCacheHook.NONE);
        byte[] block = new byte[4096];
        Random r = new Random(3);
        long[] lat = {0};
        // Empty store: writes to a 4 MiB object.
        long emptyNanos =
            run(
                s,
                q,
                n,
                (i, d) ->
                    s.write(
                        new ObjectKey(1, "small"),
                        (long) r.nextInt(1024) * 4096,
                        MemorySegment.ofArray(block),
                        d),
                lat);
        long emptyLat = lat[0];
        if (warmUpOnly) {
          s.close();
          return;
        }
        // Fill to 90% of the capacity the shard reports (what users can store; the 4 MiB object
        // above counts) with 1 MiB writes into 4 MiB objects.
        long fill = (long) (s.stats().capacityBytes() * 0.9) - (4L << 20);
        int chunks = (int) (fill >> 20);
        byte[] chunk = new byte[1 << 20];
        run(
            s,
            q,
            chunks,
            (i, d) ->
                s.write(
                    new ObjectKey(1, "img." + (i / 4)),
                    (i % 4) << 20,
                    MemorySegment.ofArray(chunk),
                    d),
            null);
        int objects = chunks / 4;
        Op overwrite =
            (i, d) ->
                s.write(
                    new ObjectKey(1, "img." + r.nextInt(objects)),
                    (long) r.nextInt(1024) * 4096,
                    MemorySegment.ofArray(block),
                    d);
        run(s, q, n, overwrite, null); // warm up: the cleaner is running from here on
        ShardStats before = s.stats();
        lat[0] = 0;
        long fullNanos = run(s, q, n, overwrite, lat);
        ShardStats after = s.stats();
        long user = after.userBytesWritten() - before.userBytesWritten();
        long journal = after.journalBytesWritten() - before.journalBytesWritten();
        long cleaner = after.cleanerBytesWritten() - before.cleanerBytesWritten();
        long dev = journal + cleaner;
        long records = after.records() - before.records();
        System.out.printf(
            "MEASURE cleaner %s, %d%% over-provisioned: empty %.0f writes/s (max latency %.1f ms), 90%% full %.0f"
                + " writes/s (max latency %.1f ms), ratio %.2f; WA in the full phase %.2f"
                + " (journal %.2f, cleaner %.2f; %d records);"
                + " %d waits for space in the full phase, %.2f ms on average; segments cleaned %d"
                + " (%d in"
                + " the full phase, %.0f blocks relocated each)%n",
            policy,
            cfg.overprovisionPercent(),
            n / (emptyNanos / 1e9),
            emptyLat / 1e6,
            n / (fullNanos / 1e9),
            lat[0] / 1e6,
            (double) emptyNanos / fullNanos,
            (double) dev / user,
            (double) journal / user,
            (double) cleaner / user,
            records,
            after.spaceWaits() - before.spaceWaits(),
            (after.spaceWaitNanos() - before.spaceWaitNanos())
                / 1e6
                / Math.max(1, after.spaceWaits() - before.spaceWaits()),
            after.segmentsCleaned(),
            after.segmentsCleaned() - before.segmentsCleaned(),
            cleaner
                / (double) (DeltaDescriptor.RELOCATE_LENGTH + 4096)
                / Math.max(1, after.segmentsCleaned() - before.segmentsCleaned()));
        s.close();
      }
    } finally {
      deleteRecursively(dir);
    }
  }

  private StoreMeasurements() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: StoreMeasurements mount|index|cleaner");
      System.exit(2);
    }
    switch (args[0]) {
      case "mount" -> mountTimeWithOneMillionObjects();
      case "index" -> indexBytesPerExtentAfterRandomOverwritesOfAFullImage();
      case "cleaner" -> cleanerAtNinetyPercentFull();
      default -> {
        System.err.println("unknown measurement " + args[0] + ": mount, index or cleaner");
        System.exit(2);
      }
    }
  }

  static Path createDirectory(String prefix) throws IOException {
    Path parent = Path.of(System.getProperty("tidestore.bench.dir", "/var/tmp"));
    Files.createDirectories(parent);
    return Files.createTempDirectory(parent, prefix);
  }

  static void deleteRecursively(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
