package io.tidestore.store.shard;

import io.tidestore.store.api.ExtentCacheHook;
import io.tidestore.store.api.JournalObserver;
import io.tidestore.store.api.ListPage;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ObjectStat;
import io.tidestore.store.api.ShardStats;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.api.StoreException.Code;
import io.tidestore.store.index.BlockEntry;
import io.tidestore.store.index.ObjectEntry;
import io.tidestore.store.index.ObjectIndex;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.journal.Batch;
import io.tidestore.store.journal.BufferPool;
import io.tidestore.store.journal.Journal;
import io.tidestore.store.journal.SyncRound;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.CorruptRecordException;
import io.tidestore.store.record.DeltaWriter;
import io.tidestore.store.record.RecordHeader;
import io.tidestore.store.record.Superblock;
import io.tidestore.store.segment.SegmentTable;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.zip.CRC32C;

/**
 * The log-structured {@link ShardStore}: stages mutations into the {@link Journal}, applies durable
 * records in order, serves verified reads, and drives checkpoints and the cleaner. Created by
 * {@link ShardMount} on the owner thread; see {@link ShardStore} for the threading contract.
 */
public final class LogShard implements ShardStore, Journal.Listener {
  private static final System.Logger LOG = System.getLogger(LogShard.class.getName());
  private static final int READ_POOL_BYTES = ShardMemory.READ_BUFFER_BYTES;

  final int shard;
  final IoQueue queue;
  final IoFile file;
  final Superblock superblock;
  final StoreConfig config;
  final ObjectIndex index;
  final SegmentTable segments;
  final ExtentCacheHook cache;
  final CRC32C crc = new CRC32C();
  final BufferPool readPool;
  final Journal journal;
  final Checkpointer checkpointer;
  final Cleaner cleaner;
  int readsInFlight;

  /** Reads waiting for a free I/O queue slot (a large, fragmented read has many runs). */
  private final ArrayDeque<BlockRead> readBacklog = new ArrayDeque<>();

  private final Thread owner;
  final Arena arena;
  private final RecordApplier applier;
  private final MemorySegment zeroBlock;
  private int rmwInFlight;
  private boolean readOnly;
  private boolean closed;
  private long userBytes;
  private long spaceWaitMaxNanos;
  private long spaceWaits;
  private long spaceWaitNanos;
  private long replayedRecords;

  /** {@link VictimPicker#capacityBlocks}: live blocks users may have. */
  private final long capacityBlocks;

  /** Blocks that staged, not yet applied writes newly map ({@link Batch#liveBlocksCharged}). */
  private long stagedLiveBlocks;

  LogShard(
      int shard,
      IoQueue queue,
      IoFile file,
      IoFile[] checkpointSlots,
      Superblock superblock,
      StoreConfig config,
      ObjectIndex index,
      SegmentTable segments,
      ExtentCacheHook cache,
      Arena arena,
      long lastSeq,
      long lastCheckpointGeneration,
      long lastCheckpointSeq,
      int headSegment,
      long headOffset,
      SyncRound syncRound) {
    this.owner = Thread.currentThread();
    this.shard = shard;
    this.queue = queue;
    this.file = file;
    this.superblock = superblock;
    this.config = config;
    this.index = index;
    this.segments = segments;
    this.cache = cache;
    this.arena = arena;
    this.readPool = new BufferPool(arena, READ_POOL_BYTES, ShardMemory.READ_BUFFERS);
    this.zeroBlock = arena.allocate(Blocks.SIZE, Blocks.SIZE);
    this.zeroBlock.fill((byte) 0);
    this.applier = new RecordApplier(index, segments, cache, true);
    this.journal =
        new Journal(
            shard,
            superblock,
            config,
            queue,
            file,
            segments,
            arena,
            this,
            lastSeq,
            superblock.epoch(),
            headSegment,
            headOffset,
            syncRound);
    this.checkpointer =
        new Checkpointer(this, checkpointSlots, lastCheckpointGeneration, lastCheckpointSeq);
    this.cleaner = new Cleaner(this, arena.allocate(superblock.segmentBytes(), Blocks.SIZE));
    this.capacityBlocks = cleaner.capacityBlocks();
  }

  String where() {
    return " (shard " + shard + ", " + file.path() + ")";
  }

  private void enter() {
    if (Thread.currentThread() != owner) {
      throw new IllegalStateException(
          "shard "
              + shard
              + " is owned by thread "
              + owner.getName()
              + ", called from "
              + Thread.currentThread().getName());
    }
    if (closed) {
      throw new IllegalStateException("shard " + shard + " is closed");
    }
    journal.checkAge(System.nanoTime());
  }

  @Override
  public int shard() {
    return shard;
  }

  @Override
  public long maxWriteBytes() {
    return journal.maxOpBytes();
  }

  @Override
  public boolean readOnly() {
    return readOnly;
  }

  @Override
  public boolean idle() {
    return journal.idle()
        && parked.isEmpty()
        && readBacklog.isEmpty()
        && readsInFlight == 0
        && rmwInFlight == 0
        && !checkpointer.busy()
        && !cleaner.busy();
  }

  // ---------------------------------------------------------------- mutations

  private static StoreException invalid(String why) {
    return new StoreException(Code.INVALID, why);
  }

  private StoreException refuseWrite() {
    if (readOnly) {
      return new StoreException(
          Code.READ_ONLY, "shard " + shard + " is read-only after an I/O error; remount it");
    }
    return null;
  }

  private StoreException noSpace(long bytes) {
    StoreException memory = journal.takeMemoryRefusal();
    if (memory != null) {
      return memory;
    }
    return new StoreException(
        Code.NO_SPACE,
        "shard "
            + shard
            + " has no space for "
            + bytes
            + " more bytes: "
            + segments.freeCount()
            + " of "
            + segments.count()
            + " segments free ("
            + config.reserveSegments()
            + " reserved for the cleaner), "
            + segments.totalLive()
            + " of "
            + (long) segments.count() * segments.blocksPerSegment()
            + " blocks live; remove or truncate objects to free space");
  }

  private StoreException overCapacity(int blocks) {
    return new StoreException(
        Code.NO_SPACE,
        "shard "
            + shard
            + " has no space for "
            + blocks
            + " more blocks: "
            + (segments.totalLive() + stagedLiveBlocks)
            + " of its capacity of "
            + capacityBlocks
            + " 4 KiB blocks are in use; remove or truncate objects to free space");
  }

  /**
   * Blocks of {@code [first, first + n)} that will hold no data once every staged mutation of the
   * object has applied: what a write there adds to the live blocks. Overwrites (the common case)
   * find every block applied below the lowest staged cut and look nothing else up.
   */
  private static int newLiveBlocks(ObjectEntry e, int first, int n) {
    long cut = e.lowestCut();
    int added = 0;
    for (int b = first; b < first + n; b++) {
      boolean applied = !BlockEntry.isHole(e.block(b)) && ((long) b << Blocks.SHIFT) < cut;
      if (!applied && (e.pending == null || !e.pending.containsKey(b))) {
        added++;
      }
    }
    return added;
  }

  /** The entry to stage a mutation into; null when a new one would exceed the index's memory. */
  private ObjectEntry entryForWrite(ObjectKey key) {
    ObjectEntry e = index.get(key);
    return e != null ? e : index.admitsNewObject() ? index.create(key) : null;
  }

  private StoreException indexFull(ObjectKey key) {
    return new StoreException(
        Code.NO_MEMORY,
        "shard "
            + shard
            + " cannot create "
            + key.pool()
            + "/"
            + key.name()
            + ": its index ("
            + index.footprintBytes()
            + " bytes) reached its share of --memory-limit; existing objects still read, write"
            + " and remove; raise --memory-limit or remove objects");
  }

  /** Drops an entry that a refused operation created and nothing else uses. */
  private void forgetIfUnused(ObjectEntry e) {
    if (!e.exists && e.quiescent() && index.get(e.key) == e) {
      index.drop(e);
    }
  }

  @Override
  public void write(ObjectKey key, long offset, MemorySegment data, StoreCompletion<Void> done) {
    enter();
    long len = data.byteSize();
    if (offset < 0 || offset + len > MAX_OBJECT_BYTES) {
      done.complete(
          null,
          invalid(
              "write of "
                  + len
                  + " bytes at "
                  + offset
                  + " leaves the object's range [0, "
                  + MAX_OBJECT_BYTES
                  + ")"));
      return;
    }
    if (len > maxWriteBytes()) {
      done.complete(
          null,
          invalid(
              "write of "
                  + len
                  + " bytes exceeds the largest single write of this shard, "
                  + maxWriteBytes()
                  + " bytes (one write is one atomic record and a record fits one "
                  + superblock.segmentBytes()
                  + "-byte segment); split it into several writes"));
      return;
    }
    StoreException refused = refuseWrite();
    if (refused != null) {
      done.complete(null, refused);
      return;
    }
    ObjectEntry e = entryForWrite(key);
    if (e == null) {
      done.complete(null, indexFull(key));
      return;
    }
    if (e.waiting != null) {
      MemorySegment copy = heapCopy(data);
      e.waiting.add(() -> doWrite(e, offset, copy, done, true));
      return;
    }
    doWrite(e, offset, data, done, false);
  }

  private static MemorySegment heapCopy(MemorySegment data) {
    return MemorySegment.ofArray(data.toArray(ValueLayout.JAVA_BYTE));
  }

  private void doWrite(
      ObjectEntry e, long offset, MemorySegment data, StoreCompletion<Void> done, boolean copied) {
    StoreException refused = refuseWrite();
    if (refused != null) {
      done.complete(null, refused);
      return;
    }
    long len = data.byteSize();
    if (len == 0) {
      if (e.stagedExists) {
        done.complete(null, null);
      } else {
        stageOrPark(e, () -> stageCreateOnly(e, done), done);
      }
      return;
    }
    long end = offset + len;
    int first = (int) (offset >>> Blocks.SHIFT);
    int last = (int) ((end - 1) >>> Blocks.SHIFT);
    boolean headPartial = (offset & (Blocks.SIZE - 1)) != 0 || end < ((long) first + 1) << 12;
    boolean tailPartial = last != first && (end & (Blocks.SIZE - 1)) != 0;
    MemorySegment headBase = headPartial ? baseInMemory(e, first) : null;
    MemorySegment tailBase = tailPartial ? baseInMemory(e, last) : null;
    boolean headDisk = headPartial && headBase == null;
    boolean tailDisk = tailPartial && tailBase == null;
    if (!headDisk && !tailDisk) {
      MemorySegment h0 = headBase;
      MemorySegment t0 = tailBase;
      if (!stageWrite(e, offset, data, headBase, tailBase, done)) {
        // Parked for space: keep copies, the caller's buffer and batch slices may change. Only
        // here: a staged write has its bytes in the batch already, so copying up front would cost
        // every write an extra copy and allocation for the rare park.
        MemorySegment own = copied ? data : heapCopy(data);
        MemorySegment h1 = stable(h0);
        MemorySegment t1 = stable(t0);
        park(e, () -> stageWrite(e, offset, own, h1, t1, done), done);
      }
      return;
    }
    // Read-modify-write: fetch the old contents of the partial end blocks, and hold every later
    // mutation of this object until the write is staged, so per-object order is kept.
    MemorySegment own = copied ? data : heapCopy(data);
    e.waiting = new ArrayDeque<>();
    // An in-memory base may be a slice of a batch buffer that is recycled once its batch applies,
    // which can happen before the disk read returns: keep a copy.
    MemorySegment[] bases = {stable(headBase), stable(tailBase)};
    int[] left = {(headDisk ? 1 : 0) + (tailDisk ? 1 : 0)};
    StoreException[] error = {null};
    Runnable finish =
        () -> {
          rmwInFlight--;
          if (error[0] != null) {
            done.complete(null, error[0]);
            forgetIfUnused(e);
          } else if (!stageWrite(e, offset, own, bases[0], bases[1], done)) {
            park(e, () -> stageWrite(e, offset, own, bases[0], bases[1], done), done);
            return;
          }
          resume(e);
        };
    rmwInFlight++;
    if (headDisk) {
      readBase(
          e,
          first,
          (block, failure) -> {
            bases[0] = block;
            error[0] = error[0] != null ? error[0] : failure;
            if (--left[0] == 0) {
              finish.run();
            }
          });
    }
    if (tailDisk) {
      readBase(
          e,
          last,
          (block, failure) -> {
            bases[1] = block;
            error[0] = error[0] != null ? error[0] : failure;
            if (--left[0] == 0) {
              finish.run();
            }
          });
    }
    submitQuietly();
  }

  private MemorySegment stable(MemorySegment base) {
    return base == null || base.equals(zeroBlock) ? base : heapCopy(base);
  }

  /** A user mutation waiting for the cleaner to free space. */
  private record Parked(
      ObjectEntry entry,
      BooleanSupplier attempt,
      StoreCompletion<Void> done,
      long since,
      String state) {}

  /**
   * Logs every wait for space longer than this many milliseconds with the shard's state when the
   * write parked and when it resumed ({@code -Dtidestore.traceSpaceWaitsMs=N}; 0, the default, is
   * off).
   */
  private static final long TRACE_SPACE_WAITS_NANOS =
      Long.getLong("tidestore.traceSpaceWaitsMs", 0L) * 1_000_000L;

  /** Free segments, victims in flight and checkpoint state, for the space-wait trace. */
  private String spaceState() {
    return "free="
        + segments.freeCount()
        + " placeable="
        + journal.placeableBlocks()
        + " "
        + cleaner.state()
        + " checkpoint="
        + (checkpointer.busy() ? "busy" : "idle")
        + " parked="
        + parked.size();
  }

  /** Whether some user mutation waits for space. */
  boolean hasParked() {
    return !parked.isEmpty();
  }

  /** How long a mutation may wait for space before it fails with NO_SPACE. */
  private static final long SPACE_WAIT_LIMIT_NANOS = 10_000_000_000L;

  private final ArrayDeque<Parked> parked = new ArrayDeque<>();

  /**
   * A stage attempt found no space. Returns false (the caller parks the operation) when the cleaner
   * or a checkpoint can still free some; otherwise fails it with NO_SPACE and returns true.
   */
  private boolean refusedForSpace(ObjectEntry e, StoreCompletion<Void> done) {
    if (journal.failure() != null) {
      done.complete(null, journal.failure());
      forgetIfUnused(e);
      return true;
    }
    if (!cleaner.canMakeSpace(journal.segmentsWanted())) {
      done.complete(null, noSpace(0));
      forgetIfUnused(e);
      return true;
    }
    return false;
  }

  /** Runs {@code attempt}; if it must wait for space, parks it. */
  private void stageOrPark(ObjectEntry e, BooleanSupplier attempt, StoreCompletion<Void> done) {
    if (!attempt.getAsBoolean()) {
      park(e, attempt, done);
    }
  }

  /** Parks an attempt; later mutations of the object queue behind it. */
  private void park(ObjectEntry e, BooleanSupplier attempt, StoreCompletion<Void> done) {
    if (e.waiting == null) {
      e.waiting = new ArrayDeque<>();
    }
    parked.add(
        new Parked(
            e, attempt, done, System.nanoTime(), TRACE_SPACE_WAITS_NANOS > 0 ? spaceState() : ""));
    cleaner.maybeStart();
  }

  /**
   * Frees segments that overwrites emptied and a durable checkpoint already covers, without waiting
   * for the next checkpoint to do it.
   */
  private void reclaimDeadSegments() {
    segments.reclaim(checkpointer.durableSeq());
  }

  /** Retries parked mutations; called whenever space may have been freed. */
  void retryParked() {
    if (parked.isEmpty()) {
      return;
    }
    List<Parked> all = new ArrayList<>(parked);
    parked.clear();
    long now = System.nanoTime();
    for (Parked p : all) {
      if (p.attempt().getAsBoolean()) {
        noteSpaceWait(now - p.since());
        if (TRACE_SPACE_WAITS_NANOS > 0 && now - p.since() >= TRACE_SPACE_WAITS_NANOS) {
          LOG.log(
              System.Logger.Level.INFO,
              "SPACEWAIT shard "
                  + shard
                  + " waited "
                  + (now - p.since()) / 1_000_000
                  + " ms; parked at ["
                  + p.state()
                  + "] resumed at ["
                  + spaceState()
                  + "]");
        }
        resume(p.entry());
      } else if (!cleaner.canMakeSpace(journal.segmentsWanted())
          || now - p.since() > SPACE_WAIT_LIMIT_NANOS) {
        noteSpaceWait(now - p.since());
        p.done().complete(null, noSpace(0));
        resume(p.entry());
        forgetIfUnused(p.entry());
      } else {
        parked.add(p);
      }
    }
  }

  /**
   * Starts a read if the I/O queue has room, keeping two slots for the journal's next record;
   * otherwise queues it until completions free slots.
   */
  void startRead(BlockRead read) {
    if (readBacklog.isEmpty()
        && queue.capacity() - queue.inFlight() > 2
        && readPool.available() > 0) {
      read.start();
    } else {
      readBacklog.add(read);
    }
  }

  /** Starts backlogged reads as far as the queue allows. */
  void pumpReads() {
    boolean started = false;
    while (!readBacklog.isEmpty()
        && queue.capacity() - queue.inFlight() > 2
        && readPool.available() > 0) {
      readBacklog.poll().start();
      started = true;
    }
    if (started) {
      submitQuietly();
    }
  }

  private interface BaseDone {
    void done(MemorySegment block, StoreException failure);
  }

  /**
   * The current content of block {@code b} for a merge, if it is known without I/O: zeros past the
   * staged size or in a hole, the newest staged copy, or the cache's copy. Null means read it.
   */
  private MemorySegment baseInMemory(ObjectEntry e, int b) {
    if (!e.stagedExists || ((long) b << Blocks.SHIFT) >= e.stagedSize) {
      return zeroBlock;
    }
    if (e.pending != null) {
      MemorySegment p = e.pending.get(b);
      if (p != null) {
        return p;
      }
    }
    long entry = e.block(b);
    if (BlockEntry.isHole(entry) || ((long) b << Blocks.SHIFT) >= e.lowestCut()) {
      // A hole, or an applied block that a staged truncate or remove already cut off.
      return zeroBlock;
    }
    MemorySegment cached = cache.lookup(e.id, b);
    return cached != null ? heapCopy(cached) : null;
  }

  private void readBase(ObjectEntry e, int b, BaseDone done) {
    long entry = e.block(b);
    startRead(
        new BlockRead(
            this,
            e.id,
            b,
            1,
            BlockEntry.location(entry),
            new int[] {BlockEntry.crc(entry)},
            (read, blocks, failure) ->
                done.done(blocks == null ? null : heapCopy(blocks), failure)));
  }

  /** Runs the mutations queued behind a finished read-modify-write, in order. */
  private void resume(ObjectEntry e) {
    ArrayDeque<Runnable> queued = e.waiting;
    e.waiting = null;
    while (queued != null && !queued.isEmpty()) {
      queued.poll().run();
      if (e.waiting != null) {
        e.waiting.addAll(queued);
        return;
      }
    }
  }

  private boolean stageCreateOnly(ObjectEntry e, StoreCompletion<Void> done) {
    byte[] name = e.key.nameBytes();
    Batch batch = journal.reserve(DeltaWriter.createLength(name.length), 0, false);
    if (batch == null) {
      return refusedForSpace(e, done);
    }
    journal.deltas().create(e.id, e.key.pool(), name);
    e.stagedExists = true;
    journal.staged(batch);
    batch.onApplied(done);
    return true;
  }

  private boolean stageWrite(
      ObjectEntry e,
      long offset,
      MemorySegment data,
      MemorySegment headBase,
      MemorySegment tailBase,
      StoreCompletion<Void> done) {
    StoreException refused = refuseWrite();
    if (refused != null) {
      done.complete(null, refused);
      return true;
    }
    long len = data.byteSize();
    long end = offset + len;
    int first = (int) (offset >>> Blocks.SHIFT);
    int last = (int) ((end - 1) >>> Blocks.SHIFT);
    int n = last - first + 1;
    boolean create = !e.stagedExists;
    byte[] name = create ? e.key.nameBytes() : null;
    int meta = (create ? DeltaWriter.createLength(name.length) : 0) + DeltaWriter.writeLength(n);
    // The capacity is a hard limit, checked before any segment space: past it waiting for the
    // cleaner cannot help, and the cleaner keeps its slack only if users cannot fill it.
    int added = newLiveBlocks(e, first, n);
    if (added > 0 && segments.totalLive() + stagedLiveBlocks + added > capacityBlocks) {
      done.complete(null, overCapacity(added));
      forgetIfUnused(e);
      return true;
    }
    Batch batch = journal.reserve(meta, n, false);
    if (batch == null) {
      return refusedForSpace(e, done);
    }
    batch.chargeLiveBlocks(added);
    stagedLiveBlocks += added;
    DeltaWriter d = journal.deltas();
    if (create) {
      d.create(e.id, e.key.pool(), name);
      e.stagedExists = true;
    }
    d.write(e.id, first, n, end);
    if (e.pending == null) {
      e.pending = new HashMap<>();
    }
    for (int i = 0; i < n; i++) {
      int b = first + i;
      MemorySegment slice = batch.dataBlock(batch.addDataBlock());
      long start = (long) b << Blocks.SHIFT;
      long from = Math.max(offset, start);
      long to = Math.min(end, start + Blocks.SIZE);
      if (to - from < Blocks.SIZE) {
        MemorySegment base = b == first && headBase != null ? headBase : tailBase;
        MemorySegment.copy(base == null ? zeroBlock : base, 0, slice, 0, Blocks.SIZE);
      }
      MemorySegment.copy(data, from - offset, slice, from - start, to - from);
      d.crc(Blocks.crc(crc, slice, 0, Blocks.SIZE));
      e.pending.put(b, slice);
      batch.pending(e, b, slice);
    }
    e.stagedSize = Math.max(e.stagedSize, end);
    userBytes += len;
    journal.staged(batch);
    batch.onApplied(done);
    return true;
  }

  @Override
  public void truncate(ObjectKey key, long size, StoreCompletion<Void> done) {
    enter();
    if (size < 0 || size > MAX_OBJECT_BYTES) {
      done.complete(null, invalid("size " + size + " outside [0, " + MAX_OBJECT_BYTES + "]"));
      return;
    }
    StoreException refused = refuseWrite();
    if (refused != null) {
      done.complete(null, refused);
      return;
    }
    ObjectEntry e = entryForWrite(key);
    if (e == null) {
      done.complete(null, indexFull(key));
      return;
    }
    if (e.waiting != null) {
      e.waiting.add(() -> doTruncate(e, size, done));
      return;
    }
    doTruncate(e, size, done);
  }

  private void doTruncate(ObjectEntry e, long size, StoreCompletion<Void> done) {
    boolean partial = e.stagedExists && size < e.stagedSize && (size & (Blocks.SIZE - 1)) != 0;
    if (!partial) {
      stageTruncate(e, size, null, done);
      return;
    }
    int b = (int) (size >>> Blocks.SHIFT);
    MemorySegment base = baseInMemory(e, b);
    if (base != null) {
      stageTruncate(e, size, base, done);
      return;
    }
    e.waiting = new ArrayDeque<>();
    rmwInFlight++;
    readBase(
        e,
        b,
        (block, failure) -> {
          rmwInFlight--;
          if (failure != null) {
            done.complete(null, failure);
          } else {
            stageTruncate(e, size, block, done);
          }
          resume(e);
        });
    submitQuietly();
  }

  private void stageTruncate(
      ObjectEntry e, long size, MemorySegment partialBase, StoreCompletion<Void> done) {
    StoreException refused = refuseWrite();
    if (refused != null) {
      done.complete(null, refused);
      return;
    }
    boolean create = !e.stagedExists;
    byte[] name = create ? e.key.nameBytes() : null;
    int meta =
        (create ? DeltaWriter.createLength(name.length) : 0)
            + (partialBase != null ? DeltaWriter.writeLength(1) : 0)
            + 17;
    // Shrinking frees space, so it may use the cleaner's reserve: a full store must be able to
    // truncate. Growing only writes metadata.
    Batch batch = journal.reserve(meta, partialBase != null ? 1 : 0, true);
    if (batch == null) {
      done.complete(null, journal.failure() != null ? journal.failure() : noSpace(0));
      forgetIfUnused(e);
      return;
    }
    DeltaWriter d = journal.deltas();
    if (create) {
      d.create(e.id, e.key.pool(), name);
      e.stagedExists = true;
    }
    int keep = (int) Blocks.count(size);
    if (e.pending != null) {
      e.pending.keySet().removeIf(b -> b >= keep);
    }
    if (partialBase != null) {
      int b = (int) (size >>> Blocks.SHIFT);
      MemorySegment slice = batch.dataBlock(batch.addDataBlock());
      MemorySegment.copy(partialBase, 0, slice, 0, Blocks.SIZE);
      int cut = (int) (size & (Blocks.SIZE - 1));
      slice.asSlice(cut, Blocks.SIZE - cut).fill((byte) 0);
      d.write(e.id, b, 1, size);
      d.crc(Blocks.crc(crc, slice, 0, Blocks.SIZE));
      if (e.pending == null) {
        e.pending = new HashMap<>();
      }
      e.pending.put(b, slice);
      batch.pending(e, b, slice);
    }
    d.truncate(e.id, size);
    e.stagedSize = size;
    e.cutStaged(size);
    journal.staged(batch);
    batch.onApplied(done);
  }

  @Override
  public void remove(ObjectKey key, StoreCompletion<Void> done) {
    enter();
    StoreException refused = refuseWrite();
    if (refused != null) {
      done.complete(null, refused);
      return;
    }
    ObjectEntry e = index.get(key);
    if (e == null) {
      done.complete(null, notFound(key));
      return;
    }
    if (e.waiting != null) {
      e.waiting.add(() -> doRemove(e, done));
      return;
    }
    doRemove(e, done);
  }

  private static StoreException notFound(ObjectKey key) {
    return new StoreException(Code.NOT_FOUND, "no object " + key.pool() + "/" + key.name());
  }

  private void doRemove(ObjectEntry e, StoreCompletion<Void> done) {
    StoreException refused = refuseWrite();
    if (refused != null) {
      done.complete(null, refused);
      return;
    }
    if (!e.stagedExists) {
      done.complete(null, notFound(e.key));
      return;
    }
    // Removing frees space, so it may use the cleaner's reserve.
    Batch batch = journal.reserve(9, 0, true);
    if (batch == null) {
      done.complete(null, journal.failure() != null ? journal.failure() : noSpace(0));
      return;
    }
    journal.deltas().remove(e.id);
    e.stagedExists = false;
    e.stagedSize = 0;
    e.pending = null;
    e.cutStaged(0);
    journal.staged(batch);
    batch.onApplied(done);
  }

  @Override
  public void setXattr(ObjectKey key, String name, byte[] value, StoreCompletion<Void> done) {
    enter();
    StoreException bad = checkXattrName(name);
    if (bad == null && value.length > MAX_XATTR_BYTES) {
      bad = invalid("xattr value of " + value.length + " bytes exceeds " + MAX_XATTR_BYTES);
    }
    if (bad == null) {
      bad = refuseWrite();
    }
    if (bad != null) {
      done.complete(null, bad);
      return;
    }
    byte[] copy = value.clone();
    ObjectEntry e = entryForWrite(key);
    if (e == null) {
      done.complete(null, indexFull(key));
      return;
    }
    if (e.waiting != null) {
      e.waiting.add(() -> stageOrPark(e, () -> doSetXattr(e, name, copy, done), done));
      return;
    }
    stageOrPark(e, () -> doSetXattr(e, name, copy, done), done);
  }

  private static StoreException checkXattrName(String name) {
    if (name == null || name.isEmpty()) {
      return invalid("xattr name must not be empty");
    }
    int n = name.getBytes(StandardCharsets.UTF_8).length;
    return n > MAX_XATTR_NAME_BYTES
        ? invalid("xattr name of " + n + " bytes exceeds " + MAX_XATTR_NAME_BYTES)
        : null;
  }

  private boolean doSetXattr(ObjectEntry e, String name, byte[] value, StoreCompletion<Void> d) {
    StoreCompletion<Void> done = d;
    StoreException refused = refuseWrite();
    if (refused != null) {
      done.complete(null, refused);
      return true;
    }
    boolean create = !e.stagedExists;
    byte[] objName = create ? e.key.nameBytes() : null;
    int meta =
        (create ? DeltaWriter.createLength(objName.length) : 0)
            + 1
            + 8
            + 2
            + name.getBytes(StandardCharsets.UTF_8).length
            + 4
            + value.length;
    Batch batch = journal.reserve(meta, 0, false);
    if (batch == null) {
      return refusedForSpace(e, done);
    }
    if (create) {
      journal.deltas().create(e.id, e.key.pool(), objName);
      e.stagedExists = true;
    }
    journal.deltas().setXattr(e.id, name, value);
    journal.staged(batch);
    batch.onApplied(done);
    return true;
  }

  @Override
  public void removeXattr(ObjectKey key, String name, StoreCompletion<Void> done) {
    enter();
    StoreException bad = checkXattrName(name);
    if (bad == null) {
      bad = refuseWrite();
    }
    if (bad != null) {
      done.complete(null, bad);
      return;
    }
    ObjectEntry e = index.get(key);
    if (e == null) {
      done.complete(null, notFound(key));
      return;
    }
    if (e.waiting != null) {
      e.waiting.add(() -> doRemoveXattr(e, name, done));
      return;
    }
    doRemoveXattr(e, name, done);
  }

  private void doRemoveXattr(ObjectEntry e, String name, StoreCompletion<Void> done) {
    StoreException refused = refuseWrite();
    if (refused != null) {
      done.complete(null, refused);
      return;
    }
    if (!e.stagedExists) {
      done.complete(null, notFound(e.key));
      return;
    }
    Batch batch =
        journal.reserve(1 + 8 + 2 + name.getBytes(StandardCharsets.UTF_8).length, 0, true);
    if (batch == null) {
      done.complete(null, journal.failure() != null ? journal.failure() : noSpace(0));
      return;
    }
    journal.deltas().removeXattr(e.id, name);
    journal.staged(batch);
    batch.onApplied(done);
  }

  // ---------------------------------------------------------------- queries

  @Override
  public void read(ObjectKey key, long offset, MemorySegment into, StoreCompletion<Integer> done) {
    enter();
    ObjectEntry e = index.get(key);
    if (e == null || !e.exists) {
      done.complete(null, notFound(key));
      return;
    }
    if (offset < 0) {
      done.complete(null, invalid("negative read offset " + offset));
      return;
    }
    long avail = e.size - offset;
    int len = (int) Math.max(0, Math.min(into.byteSize(), Math.min(avail, Integer.MAX_VALUE)));
    if (len == 0) {
      done.complete(0, null);
      return;
    }
    UserRead op = new UserRead(this, offset, len, into, done);
    int first = (int) (offset >>> Blocks.SHIFT);
    int last = (int) ((offset + len - 1) >>> Blocks.SHIFT);
    int runStart = -1;
    int runLoc = 0;
    for (int b = first; b <= last + 1; b++) {
      long entry = b <= last ? e.block(b) : BlockEntry.HOLE;
      int loc = BlockEntry.location(entry);
      MemorySegment cached = null;
      if (b <= last && !BlockEntry.isHole(entry)) {
        cached = cache.lookup(e.id, b);
      }
      boolean extend =
          runStart >= 0
              && b <= last
              && !BlockEntry.isHole(entry)
              && cached == null
              && loc == runLoc + (b - runStart)
              && segments.segmentOf(loc) == segments.segmentOf(runLoc)
              && (long) (b - runStart + 1) * Blocks.SIZE <= READ_POOL_BYTES;
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
    submitQuietly();
  }

  private BlockRead newRun(ObjectEntry e, int firstBlock, int count, int firstLoc, UserRead op) {
    int[] crcs = new int[count];
    for (int i = 0; i < count; i++) {
      crcs[i] = BlockEntry.crc(e.block(firstBlock + i));
    }
    return new BlockRead(this, e.id, firstBlock, count, firstLoc, crcs, op);
  }

  @Override
  public void stat(ObjectKey key, StoreCompletion<ObjectStat> done) {
    enter();
    ObjectEntry e = index.get(key);
    if (e == null || !e.exists) {
      done.complete(null, notFound(key));
      return;
    }
    done.complete(new ObjectStat(key, e.id, e.size, e.allocatedBlocks()), null);
  }

  @Override
  public void list(
      long pool, String prefix, ObjectKey startAfter, int limit, StoreCompletion<ListPage> done) {
    enter();
    if (limit < 1 || prefix == null) {
      done.complete(null, invalid("list needs limit >= 1 and a prefix (may be empty)"));
      return;
    }
    List<ObjectKey> keys = index.list(pool, prefix, startAfter, limit);
    if (keys.size() > limit) {
      List<ObjectKey> page = keys.subList(0, limit);
      done.complete(new ListPage(page, page.get(limit - 1)), null);
    } else {
      done.complete(new ListPage(keys, null), null);
    }
  }

  @Override
  public void getXattr(ObjectKey key, String name, StoreCompletion<byte[]> done) {
    enter();
    ObjectEntry e = index.get(key);
    if (e == null || !e.exists) {
      done.complete(null, notFound(key));
      return;
    }
    byte[] v = e.xattr(name);
    if (v == null) {
      done.complete(
          null, new StoreException(Code.NO_ATTRIBUTE, "no xattr '" + name + "' on " + key.name()));
      return;
    }
    done.complete(v.clone(), null);
  }

  // ---------------------------------------------------------------- loop hook, apply

  @Override
  public void endOfPass() {
    enter();
    reclaimDeadSegments();
    retryParked();
    pumpReads();
    cleaner.maybeStart();
    journal.endOfPass();
  }

  void submitQuietly() {
    try {
      queue.submit();
    } catch (IOException ex) {
      LOG.log(System.Logger.Level.ERROR, "shard " + shard + ": I/O submit failed: " + ex);
    }
  }

  @Override
  public void apply(Batch batch) {
    // From here the segments' live counts include what the record's writes newly map.
    stagedLiveBlocks -= batch.liveBlocksCharged();
    for (Batch.PendingBlock p : batch.pendingBlocks()) {
      HashMap<Integer, MemorySegment> pending = p.entry().pending;
      if (pending != null && p.slice().equals(pending.get(p.block()))) {
        pending.remove(p.block());
        if (pending.isEmpty()) {
          p.entry().pending = null;
        }
      }
    }
    RecordHeader h = RecordHeader.peek(batch.meta(), Integer.MAX_VALUE);
    try {
      applier.apply(batch.meta(), h, (int) (batch.position() >>> Blocks.SHIFT), batch.data());
    } catch (CorruptRecordException ex) {
      // Our own encoding failed to decode: a bug, not a disk fault. Stop writing.
      throw new IllegalStateException("shard " + shard + ": own record does not decode", ex);
    }
    checkpointer.afterApply(batch.seq());
  }

  @Override
  public void journalFailed(IoOpException cause) {
    readOnly = true;
    LOG.log(
        System.Logger.Level.ERROR,
        "shard "
            + shard
            + " ("
            + file.path()
            + "): journal write failed: "
            + cause.getMessage()
            + "; the batch and every later one failed, the index is unchanged; the shard is now"
            + " READ-ONLY (reads continue; remount to write again)");
  }

  void checkpointFailed(IoOpException cause) {
    readOnly = true;
    LOG.log(
        System.Logger.Level.ERROR,
        "shard "
            + shard
            + ": index checkpoint write failed: "
            + cause.getMessage()
            + "; the journal still holds every change, but segments cannot be reclaimed; the"
            + " shard is now READ-ONLY (remount to write again)");
  }

  void corruptionSeen(StoreException e) {
    LOG.log(System.Logger.Level.ERROR, e.getMessage() + "; the data was not served");
  }

  void noteSpaceWait(long nanos) {
    spaceWaitMaxNanos = Math.max(spaceWaitMaxNanos, nanos);
    spaceWaits++;
    spaceWaitNanos += nanos;
  }

  @Override
  public void observeJournal(JournalObserver observer) {
    enter();
    journal.observe(observer);
  }

  /** Starts a new longest-wait-for-space window (measurements of one phase of a run). */
  void resetSpaceWaitMax() {
    spaceWaitMaxNanos = 0;
  }

  @Override
  public ShardStats stats() {
    return new ShardStats(
        userBytes,
        journal.bytesWritten() - cleaner.bytesWritten(),
        cleaner.bytesWritten(),
        journal.records(),
        journal.syncs(),
        segments.count(),
        segments.freeCount(),
        cleaner.segmentsCleaned(),
        segments.totalLive(),
        index.objectCount(),
        index.footprintBytes(),
        checkpointer.written(),
        spaceWaitMaxNanos,
        spaceWaits,
        spaceWaitNanos,
        superblock.segmentBytes(),
        capacityBlocks * Blocks.SIZE);
  }

  /** Records replay applied when this shard was mounted. */
  public long replayedRecords() {
    return replayedRecords;
  }

  void replayedRecords(long n) {
    replayedRecords = n;
  }

  /** The index, for tests and fsck in this module. */
  /**
   * Whether block {@code block} of object {@code objectId} is still applied at {@code location}:
   * false once an overwrite, truncate, remove or cleaner relocation has moved it since a read of
   * that location was issued.
   */
  boolean stillMapped(long objectId, int block, int location) {
    ObjectEntry e = index.byId(objectId);
    if (e == null || ((long) block << Blocks.SHIFT) >= e.lowestCut()) {
      return false;
    }
    long entry = e.block(block);
    return !BlockEntry.isHole(entry) && BlockEntry.location(entry) == location;
  }

  public ObjectIndex index() {
    return index;
  }

  public SegmentTable segments() {
    return segments;
  }

  /** Drives the queue until {@link #idle()} or the deadline; returns whether idle. */
  public boolean awaitIdle(long timeoutNanos) {
    long deadline = System.nanoTime() + timeoutNanos;
    while (!idle()) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      reclaimDeadSegments();
      retryParked();
      pumpReads();
      cleaner.maybeStart();
      journal.endOfPass();
      try {
        queue.await(Math.min(left, 50_000_000L));
      } catch (IOException ex) {
        LOG.log(System.Logger.Level.ERROR, "shard " + shard + ": await failed: " + ex);
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    if (Thread.currentThread() != owner) {
      throw new IllegalStateException("shard " + shard + " must be closed on its owner thread");
    }
    awaitIdle(30_000_000_000L);
    if (!readOnly && journal.idle()) {
      checkpointer.request();
      awaitIdle(30_000_000_000L);
    }
    closed = true;
    journal.abandon(new StoreException(Code.CLOSED, "shard " + shard + " closed"));
    checkpointer.close();
    file.close();
    arena.close();
    index.releaseMemory();
  }
}
