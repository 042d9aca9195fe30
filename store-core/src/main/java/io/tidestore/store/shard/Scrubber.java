package io.tidestore.store.shard;

import io.tidestore.store.api.ScrubStats;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.index.BlockEntry;
import io.tidestore.store.index.ObjectEntry;
import io.tidestore.store.record.Blocks;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The online scrub of one shard. A pass first checks the index against the log in memory ({@link
 * IndexLogCheck}), then reads every mapped block back, object by object, in runs of adjacent
 * blocks, and checks each against the crc32c its index entry holds ({@link BlockRead}, the same
 * check every client read makes, so a damaged block found here is never served either).
 *
 * <p>Throttled twice: a token bucket holds the reads to {@code bytesPerSecond}, and a scrub read
 * starts only when the read path has no backlog and a spare buffer ({@link ReadPath#startIfIdle}),
 * one at a time, so client reads never queue behind it. The loop pass ({@link #tick}) advances it;
 * nothing here blocks. Owner thread only.
 */
final class Scrubber implements BlockRead.Done {
  private static final System.Logger LOG = System.getLogger(Scrubber.class.getName());

  /** Blocks one scrub read covers at most (64 KiB): small, so a pass costs little at a time. */
  static final int RUN_BLOCKS = 16;

  private final ShardContext ctx;
  private final ReadPath reads;
  private final ArrayDeque<String> damaged = new ArrayDeque<>();

  private long intervalNanos;
  private long bytesPerSecond;
  private long nextPassAt;

  private boolean running;
  private long[] objects = new long[0];
  private int objectIndex;
  private int nextBlock;

  /** After a run failed: its blocks are read again one at a time, to name each damaged one. */
  private int singleUntil;

  private boolean inFlight;
  private int runObjectIndex;
  private long tokens;
  private long refilledAt = System.nanoTime();

  private long passes;
  private long passBlocksDone;
  private long passBlocksTotal;
  private long blocksChecked;
  private long errors;
  private long lastPassEndMillis;

  Scrubber(ShardContext ctx, ReadPath reads) {
    this.ctx = ctx;
    this.reads = reads;
  }

  void schedule(long intervalNanos, long bytesPerSecond) {
    if (intervalNanos < 0 || bytesPerSecond < Blocks.SIZE) {
      throw new IllegalArgumentException(
          "scrub interval must be >= 0 and rate >= " + Blocks.SIZE + " bytes/s");
    }
    this.intervalNanos = intervalNanos;
    this.bytesPerSecond = bytesPerSecond;
    this.nextPassAt = System.nanoTime() + intervalNanos;
  }

  boolean busy() {
    return inFlight;
  }

  /** Starts a pass now; false when one runs. */
  boolean start() {
    if (running) {
      return false;
    }
    if (bytesPerSecond == 0) {
      bytesPerSecond = 16L << 20; // started on demand without a schedule: the daemon's default
    }
    running = true;
    passBlocksDone = 0;
    passBlocksTotal =
        IndexLogCheck.check(
            ctx.index, ctx.segments, ctx.superblock, this::indexFault, (e, b, entry, seg) -> {});
    long[] ids = new long[Math.max(16, (int) ctx.index.objectCount())];
    int n = 0;
    for (ObjectEntry e : ctx.index.entries()) {
      if (e.exists && e.blockSlots() > 0) {
        if (n == ids.length) {
          ids = java.util.Arrays.copyOf(ids, n * 2);
        }
        ids[n++] = e.id;
      }
    }
    objects = java.util.Arrays.copyOf(ids, n);
    objectIndex = 0;
    nextBlock = 0;
    singleUntil = 0;
    LOG.log(
        System.Logger.Level.INFO,
        "shard "
            + ctx.shard
            + ": scrub pass started: "
            + passBlocksTotal
            + " blocks in "
            + n
            + " objects at "
            + bytesPerSecond
            + " bytes/s");
    return true;
  }

  /** From the loop pass: starts a scheduled pass when due, and the next read when allowed. */
  void tick(long now) {
    if (!running) {
      if (intervalNanos > 0 && now - nextPassAt >= 0) {
        start();
      } else {
        return;
      }
    }
    long elapsed = now - refilledAt;
    refilledAt = now;
    // At most one run's worth saved up, so an idle while does not turn into a burst.
    tokens =
        Math.min((long) RUN_BLOCKS * Blocks.SIZE, tokens + (long) (elapsed / 1e9 * bytesPerSecond));
    if (!inFlight) {
      next();
    }
  }

  private void next() {
    while (objectIndex < objects.length) {
      ObjectEntry e = ctx.index.byId(objects[objectIndex]);
      int slots = e == null || !e.exists ? 0 : e.blockSlots();
      while (nextBlock < slots && BlockEntry.isHole(e.block(nextBlock))) {
        nextBlock++;
      }
      if (nextBlock >= slots) {
        objectIndex++;
        nextBlock = 0;
        continue;
      }
      int max = nextBlock < singleUntil ? 1 : RUN_BLOCKS;
      int affordable = (int) Math.min(max, tokens / Blocks.SIZE);
      if (affordable < 1) {
        return;
      }
      int first = BlockEntry.location(e.block(nextBlock));
      int count = 1;
      while (count < affordable && nextBlock + count < slots) {
        long entry = e.block(nextBlock + count);
        int loc = BlockEntry.location(entry);
        if (BlockEntry.isHole(entry)
            || loc != first + count
            || ctx.segments.segmentOf(loc) != ctx.segments.segmentOf(first)) {
          break;
        }
        count++;
      }
      int[] crcs = new int[count];
      for (int i = 0; i < count; i++) {
        crcs[i] = BlockEntry.crc(e.block(nextBlock + i));
      }
      BlockRead read = new BlockRead(reads, e.id, nextBlock, count, first, crcs, this);
      if (!reads.startIfIdle(read)) {
        return; // clients first; try again next pass
      }
      inFlight = true;
      runObjectIndex = objectIndex;
      tokens -= (long) count * Blocks.SIZE;
      nextBlock += count;
      return;
    }
    finishPass();
  }

  @Override
  public void done(BlockRead read, MemorySegment blocks, StoreException failure) {
    inFlight = false;
    if (failure == null) {
      passBlocksDone += read.count;
      blocksChecked += read.count;
    } else if (read.count > 1) {
      // Which block? Read the run again block by block.
      objectIndex = runObjectIndex;
      nextBlock = read.firstBlock;
      singleUntil = read.firstBlock + read.count;
    } else {
      passBlocksDone++;
      blocksChecked++;
      ObjectEntry e = ctx.index.byId(read.objectId);
      String name = e == null ? "id " + read.objectId : e.key.pool() + "/" + e.key.name();
      finding(
          "object "
              + name
              + " offset "
              + ((long) read.firstBlock << Blocks.SHIFT)
              + " (location "
              + Integer.toUnsignedLong(read.firstLocation)
              + "): "
              + failure.getMessage());
    }
    if (running) {
      next();
    }
  }

  private void indexFault(String what) {
    finding("index against log: " + what);
  }

  private void finding(String what) {
    errors++;
    LOG.log(System.Logger.Level.ERROR, "shard " + ctx.shard + ": scrub found damage: " + what);
    if (damaged.size() == ScrubStats.MAX_DAMAGED) {
      damaged.removeFirst();
    }
    damaged.addLast(what);
  }

  private void finishPass() {
    running = false;
    passes++;
    lastPassEndMillis = System.currentTimeMillis();
    nextPassAt = System.nanoTime() + intervalNanos;
    objects = new long[0];
    LOG.log(
        System.Logger.Level.INFO,
        "shard "
            + ctx.shard
            + ": scrub pass "
            + passes
            + " done: "
            + passBlocksDone
            + " blocks checked, "
            + errors
            + " findings since mount");
  }

  ScrubStats stats() {
    return new ScrubStats(
        running,
        passes,
        passBlocksDone,
        passBlocksTotal,
        blocksChecked,
        blocksChecked * Blocks.SIZE,
        errors,
        bytesPerSecond,
        intervalNanos,
        lastPassEndMillis,
        List.copyOf(damaged));
  }
}
