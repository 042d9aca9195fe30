package io.tidestore.store.api;

import java.lang.foreign.MemorySegment;
import java.util.SortedMap;

/**
 * One shard of the object store: a log-structured space (superblock, fixed-size segments, index
 * checkpoints) owned by exactly one thread.
 *
 * <h2>Threading</h2>
 *
 * A shard is mounted on its owner thread (see {@link ObjectStore#mountShard}) together with an
 * {@link io.tidestore.store.io.IoQueue} created on that same thread, and from then on every method
 * must be called on it; the shard checks and throws {@link IllegalStateException} otherwise. The
 * classic engine mounts a shard under a lock instead ({@link ObjectStore#mountShard(int,
 * io.tidestore.store.io.IoQueue, ExtentCacheHook, io.tidestore.store.owner.Owner)}): the rule
 * becomes "one thread at a time", any thread holding the shard's lock, and everything said here of
 * the owner thread holds for the lock holder. No method blocks except {@link #close()}. Completions
 * ({@link StoreCompletion}) run on the owner thread: either inside the call (metadata-only
 * operations, refusals) or when the owner thread reaps the I/O queue ({@code
 * IoQueue.poll()/await()}), which the event loop does anyway.
 *
 * <h2>Loop-pass hook and group commit</h2>
 *
 * Mutations issued during one pass of the event loop are gathered into one journal record and
 * written with one durable write when the loop calls {@link #endOfPass()} (or earlier when the
 * batch reaches its byte or count threshold; the numbered rules are in {@link
 * io.tidestore.store.journal.Journal}). A mutation is acknowledged only after its record is on
 * stable storage and every earlier record has been applied, so acknowledgements come in
 * journal-sequence order.
 *
 * <h2>Visibility</h2>
 *
 * Reads, {@code stat}, {@code list}, {@code listHashRange} and {@code getXattr} see the applied
 * state: every acknowledged operation and none that failed. Mutations of one object are applied in
 * the order they were issued.
 *
 * <h2>Buffer ownership</h2>
 *
 * {@link #write} copies the caller's bytes into the journal batch before it returns, so the caller
 * may reuse its buffer at once. {@link #read} copies verified bytes into the caller's segment and
 * completes with the count; the caller owns that segment and must not touch it until the
 * completion. Copying out (rather than lending views of cache slabs or I/O buffers) was chosen
 * because every block is crc-checked as a whole 4 KiB unit in an aligned O_DIRECT buffer while
 * requests are arbitrary byte ranges, one memcpy of the requested bytes is cheap next to the I/O,
 * and no network buffer can pin a cache slab or leak it when a connection dies.
 */
public interface ShardStore extends AutoCloseable {
  /** This shard's number, 0 .. shardCount-1. */
  int shard();

  /** Writes {@code data} at {@code offset}; at most {@link #maxWriteBytes()} bytes per call. */
  void write(ObjectKey key, long offset, MemorySegment data, StoreCompletion<Void> done);

  /**
   * Reads up to {@code into.byteSize()} bytes at {@code offset}; completes with the count copied
   * (short at the end of the object, 0 at or past it). Holes read as zeros.
   */
  void read(ObjectKey key, long offset, MemorySegment into, StoreCompletion<Integer> done);

  void stat(ObjectKey key, StoreCompletion<ObjectStat> done);

  /** Sets the size; bytes past a shrunk size are gone, growing reads back zeros. */
  void truncate(ObjectKey key, long size, StoreCompletion<Void> done);

  /**
   * Frees the blocks of {@code [offset, offset + length)}: they read as zeros and become holes
   * ({@link #allocation}); the size is unchanged. {@code offset} and {@code length} are multiples
   * of {@link #BLOCK_SIZE} (INVALID otherwise: a partial block is the caller's to zero by writing).
   * Atomic, like a write; it frees space, so a full store accepts it. NOT_FOUND when the object
   * does not exist.
   */
  void punch(ObjectKey key, long offset, long length, StoreCompletion<Void> done);

  /**
   * Which bytes of {@code [offset, offset + length)} hold data (block granularity); the rest reads
   * as zeros. NOT_FOUND when the object does not exist.
   */
  void allocation(ObjectKey key, long offset, long length, StoreCompletion<Allocation> done);

  void remove(ObjectKey key, StoreCompletion<Void> done);

  /**
   * Objects of {@code pool} whose names start with {@code prefix}, in name order, after {@code
   * startAfter} (null for the first page), at most {@code limit} per page.
   */
  void list(
      long pool, String prefix, ObjectKey startAfter, int limit, StoreCompletion<ListPage> done);

  /**
   * Objects of {@code pool} whose placement hash lies in {@code range}, in hash order (by reversed
   * {@link ObjectKey#placementHash()}, then name: see {@link PlacementHash}), after {@code
   * startAfter} (null for the first page), at most {@code limit} per page. The cursor is a
   * position, not an object: a {@code startAfter} that has been removed since, or never existed,
   * still resumes right after where it would sort. For a PG pass {@link HashRange#ofPg}; its
   * objects are on every shard, so list each and {@link HashOrderMerge merge} the pages. Completes
   * inside the call. INVALID when {@code limit < 1}, {@code range} is null, {@code pool < 0} or
   * {@code startAfter} is of another pool.
   *
   * <p>Cost: the index is not ordered by hash yet, so each page scans the pool's objects in the
   * shard (hashing each name once, on its first listing) and keeps the {@code limit + 1} smallest
   * in a bounded heap: O(objects of the pool in the shard + matches * log limit) per page, and
   * memory of one page. An index ordered by (reversed hash, name) would make it O(log n + limit).
   */
  void listHashRange(
      long pool, HashRange range, ObjectKey startAfter, int limit, StoreCompletion<ListPage> done);

  /** Sets a small attribute (name up to 255 bytes, value up to {@link #MAX_XATTR_BYTES}). */
  void setXattr(ObjectKey key, String name, byte[] value, StoreCompletion<Void> done);

  /** Completes with a copy of the attribute's value, or NOT_FOUND. */
  void getXattr(ObjectKey key, String name, StoreCompletion<byte[]> done);

  void removeXattr(ObjectKey key, String name, StoreCompletion<Void> done);

  /**
   * Completes with a copy of every attribute of {@code key} whose name starts with {@code prefix}
   * (empty: all), in name order (UTF-16 order of the names, Java's {@link String#compareTo}); or
   * NOT_FOUND. What Ceph keeps in omap, such as a PG's log, is kept as attributes and read back
   * this way.
   */
  void getXattrs(ObjectKey key, String prefix, StoreCompletion<SortedMap<String, byte[]>> done);

  /**
   * Commits every operation of {@code txn} in one journal record, or none of them (see {@link
   * Transaction} for what each operation does and how the whole fails). Completes once that record
   * is durable and applied, like a single mutation; the transaction's later reads see all of it.
   * The operations' objects must all be this shard's (the caller places them). The caller must not
   * change {@code txn} until {@code done} ran.
   */
  void submit(Transaction txn, StoreCompletion<Void> done);

  /**
   * The loop-pass hook: writes whatever mutations are batched, and runs what is due of the shard's
   * background work (checkpoint retries, scrub reads). Cheap when nothing is. {@code nowNanos} is
   * {@link System#nanoTime()} read once by the loop for every shard it owns: a reactor owns several
   * shards and passes tens of thousands of times a second, so a clock read per shard per pass was a
   * measurable share of a 4 KiB read's CPU.
   */
  void endOfPass(long nowNanos);

  /** {@link #endOfPass(long)} at the current time. */
  default void endOfPass() {
    endOfPass(System.nanoTime());
  }

  /** Same as {@link #endOfPass()}, for callers outside an event loop. */
  default void flush() {
    endOfPass();
  }

  /** Whether no operation is pending (nothing batched, in flight, or waiting for a read). */
  boolean idle();

  /** Whether an I/O error turned the shard read-only (writes fail with READ_ONLY). */
  boolean readOnly();

  /**
   * Sets the online scrub: a pass every {@code intervalNanos} after the previous one ended (the
   * first one interval after this call; 0 schedules none), reading at most {@code bytesPerSecond}
   * through the read path at low priority (a client read never waits behind a scrub read). Owner
   * thread only.
   */
  void scrubSchedule(long intervalNanos, long bytesPerSecond);

  /** Starts a scrub pass now; false when one is already running. Owner thread only. */
  boolean startScrub();

  /**
   * Largest byte count one {@link #write} accepts: {@link #MAX_WRITE_BYTES} when a segment holds a
   * record that large (the default geometry for shards of 1 GiB and more), else what one segment
   * holds. One write is one record, so it is atomic across a crash; a larger write fails with
   * INVALID rather than being split.
   */
  long maxWriteBytes();

  /** Counters for metrics; a snapshot taken on the owner thread. */
  ShardStats stats();

  /** Tells {@code observer} about every journal record once it is durable. Owner thread only. */
  void observeJournal(JournalObserver observer);

  /**
   * Waits for pending operations, writes an index checkpoint so the next mount replays nothing, and
   * closes the I/O files (not the queue, which the caller owns). Owner thread only.
   */
  @Override
  void close();

  /**
   * The store's block: the unit of allocation, of O_DIRECT I/O and of checksumming (every block has
   * its own crc32c). Reads and writes may be any byte range; writes that do not cover whole blocks
   * cost a read-modify-write of the partial ones, so gateways align to this.
   */
  int BLOCK_SIZE = 4096;

  /** Largest object, in bytes. */
  long MAX_OBJECT_BYTES = 64L << 20;

  /**
   * Largest single write, in bytes: the object protocol's largest data payload (16 MiB), so that
   * every write a client can send is one atomic record on a store of the default geometry.
   */
  int MAX_WRITE_BYTES = 16 << 20;

  /** Largest attribute value, in bytes. */
  int MAX_XATTR_BYTES = 64 << 10;

  /**
   * Most attributes one object may have (a checkpoint counts them in 16 bits). A set that could
   * take an object past it fails with INVALID; near the limit the check counts every unapplied
   * mutation of the object as a possible new attribute.
   */
  int MAX_XATTRS = 65_535;

  /** Longest attribute name, in UTF-8 bytes. */
  int MAX_XATTR_NAME_BYTES = 255;
}
