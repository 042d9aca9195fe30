package io.tidestore.store.journal;

import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.memory.BudgetedArena;
import io.tidestore.store.memory.MemoryBudgetExceededException;
import io.tidestore.store.memory.MemoryUse;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.RecordDescriptor;
import java.lang.foreign.Arena;
import java.util.ArrayDeque;

/**
 * The journal's record buffers. Pooled whole-record buffers hold {@link #META_BYTES} of room for
 * the header and deltas, then {@code maxBatchBytes} of data: at seal the metadata is placed right
 * before the data, so a record goes out as one contiguous write instead of two (half the device
 * writes per record). The open batch plus those in flight take one each, so the steady state
 * allocates nothing after mount; those pooled buffers are registered with the shard's ring as fixed
 * buffers, so a record's write skips pinning its pages. A batch too large for a pooled buffer gets
 * buffers of its own arena (two writes), charged to the memory budget like the pool. The {@link
 * Batch} objects are reused too, once a record applied and its operations were acknowledged ({@link
 * #recycle}). Owner thread only.
 */
final class RecordBuffers {
  /** Room for a record's header and deltas in a pooled buffer. */
  static final int META_BYTES = 64 << 10;

  private final StoreConfig config;
  private final Arena arena;
  private final String owner;
  private final BufferPool pool;

  /** Pooled buffers given back, with their views ({@link RecordBuffer}). */
  private final ArrayDeque<RecordBuffer> free = new ArrayDeque<>();

  /** Batches applied and acknowledged, ready for the next record. */
  private final ArrayDeque<Batch> spare = new ArrayDeque<>();

  RecordBuffers(StoreConfig config, Arena arena, String owner, IoQueue queue) {
    this.config = config;
    this.arena = arena;
    this.owner = owner;
    this.pool = new BufferPool(arena, META_BYTES + (long) config.maxBatchBytes(), buffers(config));
    pool.registerWith(queue);
  }

  /** Pooled buffers allocated at mount: the open batch plus those in flight. */
  static int buffers(StoreConfig config) {
    return config.maxBatchesInFlight() + 1;
  }

  /** Native bytes allocated at mount. */
  static long fixedBytes(StoreConfig config) {
    return (long) buffers(config) * (config.maxBatchBytes() + META_BYTES);
  }

  /** Metadata bytes a record needs for {@code metaLength} delta bytes (whole blocks). */
  static long metaBytes(int metaLength) {
    return (long) RecordDescriptor.metaBlocks(metaLength) * Blocks.SIZE;
  }

  /**
   * A batch with its data and metadata buffers for a first operation of {@code dataBlocks} blocks
   * and {@code metaLength} delta bytes. Both are taken here, not at seal, so a refusal of {@code
   * --memory-limit} ({@link MemoryBudgetExceededException}) fails the operation that asked, never a
   * batch that holds others.
   */
  Batch newBatch(int dataBlocks, int metaLength) {
    Batch b = spare.poll();
    if (b == null) {
      b = new Batch();
    }
    try {
      int poolBlocks = config.maxBatchBytes() / Blocks.SIZE;
      long metaNeed = metaBytes(metaLength);
      if (dataBlocks <= poolBlocks && metaNeed <= META_BYTES) {
        RecordBuffer r = free.poll();
        b.pooled = r != null ? r : new RecordBuffer(pool.take());
        b.meta = b.pooled.metaRoom;
        b.data = b.pooled.data;
        b.capacityBlocks = poolBlocks;
      } else {
        Arena own = ownArena(b);
        b.data = own.allocate(Math.max(1L, dataBlocks) * Blocks.SIZE, Blocks.SIZE);
        b.capacityBlocks = Math.max(1, dataBlocks);
        b.meta = own.allocate(Math.max(metaNeed, META_BYTES), Blocks.SIZE);
      }
      return b;
    } catch (MemoryBudgetExceededException e) {
      release(b);
      throw e;
    }
  }

  private Arena ownArena(Batch b) {
    if (b.ownArena == null) {
      b.ownArena = BudgetedArena.like(arena, MemoryUse.IO_BUFFERS, "journal batch of " + owner);
    }
    return b.ownArena;
  }

  /** Places the sealed record's {@code metaBlocks} right before its data (pooled buffers). */
  static void placeMeta(Batch b, int metaBlocks) {
    if (b.pooled != null) {
      b.meta = b.pooled.placed(metaBlocks);
    }
  }

  /** Gives the batch's buffers back (to the pool, or its own arena closes). */
  void release(Batch b) {
    if (b.pooled != null) {
      free.push(b.pooled);
      b.pooled = null;
    }
    if (b.ownArena != null) {
      b.ownArena.close();
      b.ownArena = null;
    }
    b.data = null;
    b.meta = null;
  }

  /**
   * Takes back a batch whose buffers were released and whose operations were all acknowledged:
   * nothing refers to it any more, and the next record reuses it.
   */
  void recycle(Batch b) {
    b.reset();
    spare.push(b);
  }
}
