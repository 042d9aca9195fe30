package io.tidestore.store.shard;

import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.index.BlockEntry;
import io.tidestore.store.index.ObjectEntry;
import io.tidestore.store.journal.BufferPool;
import io.tidestore.store.record.Blocks;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * A shard's reads: plans a read into cached blocks, holes and disk runs (adjacent blocks of one
 * segment, up to one read buffer), and schedules the disk runs so they never take the I/O queue
 * slots the journal's next record needs. Every block from disk is crc-checked before it is served
 * ({@link BlockRead}). Owner thread only.
 */
final class ReadPath {
  /** Longest run one disk read covers; also the size of one read buffer. */
  static final int RUN_BYTES = ShardMemory.READ_BUFFER_BYTES;

  /** I/O queue slots reads leave free for the journal's next record. */
  private static final int JOURNAL_SLOTS = 2;

  /** Completed reads kept for reuse at most (more are rarely in flight at once). */
  private static final int SPARE_READS = 256;

  private final ShardContext ctx;
  private final Staging staging;
  private final BufferPool pool;

  /** Reads waiting for a free I/O queue slot or buffer (a large, fragmented read has many runs). */
  private final ArrayDeque<BlockRead> backlog = new ArrayDeque<>();

  /** Completed reads, reused for the next ones. */
  private final ArrayDeque<UserRead> spare = new ArrayDeque<>();

  private int inFlight;

  ReadPath(ShardContext ctx, Staging staging, Arena arena) {
    this.ctx = ctx;
    this.staging = staging;
    this.pool = new BufferPool(arena, RUN_BYTES, ShardMemory.READ_BUFFERS);
    pool.registerWith(ctx.queue);
  }

  /** Whether no read is in flight or waiting. */
  boolean idle() {
    return backlog.isEmpty() && inFlight == 0;
  }

  /** Reads {@code into.byteSize()} bytes of {@code e} (which exists) at {@code offset}. */
  void read(ObjectEntry e, long offset, MemorySegment into, StoreCompletion<Integer> done) {
    long avail = e.size - offset;
    int len = (int) Math.max(0, Math.min(into.byteSize(), Math.min(avail, Integer.MAX_VALUE)));
    if (len == 0) {
      done.complete(0, null);
      return;
    }
    UserRead op = spare.poll();
    if (op == null) {
      op = new UserRead(this);
    }
    op.start(offset, len, into, done);
    int first = (int) (offset >>> Blocks.SHIFT);
    int last = (int) ((offset + len - 1) >>> Blocks.SHIFT);
    int runStart = -1;
    int runLoc = 0;
    for (int b = first; b <= last + 1; b++) {
      long entry = b <= last ? e.block(b) : BlockEntry.HOLE;
      int loc = BlockEntry.location(entry);
      MemorySegment cached = null;
      if (b <= last && !BlockEntry.isHole(entry)) {
        cached = ctx.cache.lookup(e.id, b);
      }
      boolean extend =
          runStart >= 0
              && b <= last
              && !BlockEntry.isHole(entry)
              && cached == null
              && loc == runLoc + (b - runStart)
              && ctx.segments.segmentOf(loc) == ctx.segments.segmentOf(runLoc)
              && (long) (b - runStart + 1) * Blocks.SIZE <= RUN_BYTES;
      if (runStart >= 0 && !extend) {
        op.add(newRun(e, runStart, b - runStart, runLoc, op));
        runStart = -1;
      }
      if (b > last) {
        break;
      }
      if (BlockEntry.isHole(entry)) {
        op.zeroBlock(b);
      } else if (cached != null) {
        op.copyBlock(b, cached, 0);
      } else if (runStart < 0) {
        runStart = b;
        runLoc = loc;
      }
    }
    op.release();
    ctx.submitQuietly();
  }

  private BlockRead newRun(ObjectEntry e, int firstBlock, int count, int firstLoc, UserRead op) {
    int[] crcs = new int[count];
    for (int i = 0; i < count; i++) {
      crcs[i] = BlockEntry.crc(e.block(firstBlock + i));
    }
    return new BlockRead(this, e.id, firstBlock, count, firstLoc, crcs, op);
  }

  /** Reads block {@code b} of {@code e} from disk (the base of a read-modify-write). */
  void readBlock(ObjectEntry e, int b, BlockRead.Done done) {
    long entry = e.block(b);
    start(
        new BlockRead(
            this, e.id, b, 1, BlockEntry.location(entry), new int[] {BlockEntry.crc(entry)}, done));
  }

  /** Takes back a completed read for reuse. */
  void recycle(UserRead op) {
    if (spare.size() < SPARE_READS) {
      spare.push(op);
    }
  }

  /**
   * Starts a read if the I/O queue has room, keeping slots for the journal's next record; otherwise
   * queues it until completions free slots.
   */
  void start(BlockRead read) {
    if (backlog.isEmpty() && canStart()) {
      read.start();
    } else {
      backlog.add(read);
    }
  }

  /**
   * Starts a background read (the scrub's) only if no client read waits and it leaves a buffer and
   * the journal's slots free; false otherwise (the caller tries again on a later pass).
   */
  boolean startIfIdle(BlockRead read) {
    if (!backlog.isEmpty() || ctx.freeSlots() <= JOURNAL_SLOTS + 1 || pool.available() < 2) {
      return false;
    }
    read.start();
    ctx.submitQuietly();
    return true;
  }

  private boolean canStart() {
    return ctx.freeSlots() > JOURNAL_SLOTS && pool.available() > 0;
  }

  /** Starts backlogged reads as far as the queue allows. */
  void pump() {
    boolean started = false;
    while (!backlog.isEmpty() && canStart()) {
      backlog.poll().start();
      started = true;
    }
    if (started) {
      ctx.submitQuietly();
    }
  }

  /**
   * Whether block {@code block} of object {@code objectId} is still applied at {@code location}:
   * false once an overwrite, truncate, remove or cleaner relocation has moved it since a read of
   * that location was issued (then the read's copy must not enter the cache).
   */
  boolean stillMapped(long objectId, int block, int location) {
    ObjectEntry e = ctx.index.byId(objectId);
    if (e == null || ((long) block << Blocks.SHIFT) >= staging.lowestCut(objectId)) {
      return false;
    }
    long entry = e.block(block);
    return !BlockEntry.isHole(entry) && BlockEntry.location(entry) == location;
  }

  // For BlockRead: the buffers, the queue and the accounting of one disk read.

  ShardContext context() {
    return ctx;
  }

  BufferPool pool() {
    return pool;
  }

  void started() {
    inFlight++;
  }

  void finished() {
    inFlight--;
  }

  void corrupt(StoreException e) {
    ctx.health.corruptionSeen(e);
  }
}
