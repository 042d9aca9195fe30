package io.tidestore.store.journal;

import io.tidestore.store.api.JournalObserver;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.io.IoCompletion;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.record.Blocks;
import java.io.IOException;

/**
 * Sealed records from their writes to their application, in sequence order: issues their writes
 * while fewer than {@code maxBatchesInFlight} are in flight (rule 4 of {@link Journal}), tracks
 * their completions (and, in shared-fdatasync mode, the {@link SharedSync} that makes them
 * durable), and applies durable records strictly in sequence: a record is applied (index, cache,
 * acknowledgements) only once every earlier one has been. A failed write fails its record and every
 * later one, and none of them is ever applied. Owner thread only.
 */
final class SealedRecords implements IoCompletion {
  /** What the journal does when records drain. */
  interface Owner {
    /** A write slot is free and nothing sealed waits: a batch that grew meanwhile may go now. */
    void slotFreed();

    /** The journal failed: the open batch fails too. */
    void failOpen(StoreException failure);
  }

  private final int shard;
  private final IoQueue queue;
  private final IoFile file;
  private final int maxInFlight;
  private final RecordBuffers buffers;
  private final Journal.Listener listener;
  private final Owner owner;
  private final SealedQueue sealed = new SealedQueue();

  /** The shared fdatasync, or null when each record is written with RWF_DSYNC. */
  private final SharedSync sync;

  private JournalObserver observer = JournalObserver.NONE;
  private int writing;
  private StoreException failure;
  private long lastAppliedSeq;
  private long bytesWritten;
  private long records;

  SealedRecords(
      int shard,
      IoQueue queue,
      IoFile file,
      int maxInFlight,
      boolean sharedSync,
      SyncSharing sharing,
      RecordBuffers buffers,
      Journal.Listener listener,
      Owner owner,
      long lastAppliedSeq) {
    this.shard = shard;
    this.queue = queue;
    this.file = file;
    this.maxInFlight = maxInFlight;
    this.buffers = buffers;
    this.listener = listener;
    this.owner = owner;
    this.lastAppliedSeq = lastAppliedSeq;
    this.sync = sharedSync ? new SharedSync(queue, file, sharing, this, sealed) : null;
  }

  void observe(JournalObserver observer) {
    this.observer = observer;
  }

  boolean isEmpty() {
    return sealed.isEmpty();
  }

  /** The oldest unapplied record, or null. */
  Batch oldest() {
    return sealed.peek();
  }

  StoreException failure() {
    return failure;
  }

  long lastAppliedSeq() {
    return lastAppliedSeq;
  }

  long bytesWritten() {
    return bytesWritten;
  }

  long records() {
    return records;
  }

  long syncs() {
    return sync == null ? 0 : sync.syncs();
  }

  /**
   * Whether a record sealed now would be written at once: fewer than {@code maxBatchesInFlight}
   * records are being written, none sealed earlier waits for a slot, and the shared fdatasync would
   * not rather have the batch grow ({@link SharedSync#holdsNewRecords}).
   */
  boolean canWriteNow() {
    if (sync != null && sync.holdsNewRecords()) {
      return false;
    }
    int busy = writing;
    for (int i = 0; i < sealed.size(); i++) {
      Batch b = sealed.get(i);
      if (!b.submitted && !b.failed) {
        busy++;
      }
    }
    return busy < maxInFlight;
  }

  /** Takes a sealed record; it is written in turn. */
  void add(Batch b) {
    sealed.add(b);
    if (failure != null) {
      failBatch(b, failure);
    }
  }

  /** Adds a record that could not be placed and fails it (and every later one). */
  void addUnplaceable(Batch b, long len) {
    b.failed = true;
    sealed.add(b);
    fail(b, new IoOpException(IoOpException.Op.WRITE_DURABLE, 28, 0, len, "no free segment"));
  }

  /** Rule 4: issues the writes of sealed records while fewer than the cap are in flight. */
  void submitReady() {
    for (int i = 0; i < sealed.size(); i++) {
      Batch b = sealed.get(i);
      if (writing >= maxInFlight) {
        return;
      }
      if (b.submitted || b.failed) {
        continue;
      }
      int ops = b.pooled != null || b.dataBlocks == 0 ? 1 : 2;
      if (queue.capacity() - queue.inFlight() < ops) {
        return;
      }
      b.submitted = true;
      b.submitNanos = System.nanoTime();
      b.writesOutstanding = ops;
      b.bytesAsked = 0;
      b.bytesDone = 0;
      writing++;
      if (b.pooled != null) {
        write(b, b.position, b.pooled.write(b.metaBlocks, b.recordBytes()));
      } else {
        write(b, b.position, b.meta.asSlice(0, (long) b.metaBlocks * Blocks.SIZE));
        if (b.dataBlocks > 0) {
          long dataAt = b.position + (long) b.metaBlocks * Blocks.SIZE;
          write(b, dataAt, b.data.asSlice(0, (long) b.dataBlocks * Blocks.SIZE));
        }
      }
    }
  }

  private void write(Batch b, long position, java.lang.foreign.MemorySegment bytes) {
    b.bytesAsked += bytes.byteSize();
    if (sync != null) {
      queue.write(file, position, bytes, this, b.seq);
    } else {
      queue.writeDurable(file, position, bytes, this, b.seq);
    }
  }

  /** Submits what was prepared; a failed submit fails the oldest record in flight. */
  void submitQuietly() {
    try {
      queue.submit();
    } catch (IOException e) {
      IoOpException err =
          new IoOpException(IoOpException.Op.WRITE_DURABLE, 5, 0, 0, "submit failed: " + e);
      for (int i = 0; i < sealed.size(); i++) {
        Batch b = sealed.get(i);
        if (b.submitted && !b.durable && !b.failed) {
          fail(b, err);
          return;
        }
      }
    }
  }

  private Batch find(long seq) {
    for (int i = 0; i < sealed.size(); i++) {
      Batch b = sealed.get(i);
      if (b.seq == seq) {
        return b;
      }
    }
    return null;
  }

  /**
   * The group's flush covered records of this journal: they are durable now, but not yet applied.
   * What {@link #completed} does for the journal's own fdatasync, in the steps the group spreads
   * out: this, then {@link #startNextRecord} for every member, then {@link #applyDurable}.
   */
  void groupFlushed() {
    sync.completed(observer);
  }

  /** Seals and prepares the write of the batch that grew while the flush ran, if it may go now. */
  void startNextRecord() {
    if (failure == null) {
      owner.slotFreed();
    }
  }

  /** Applies and acknowledges the durable records, then issues what waited. */
  void applyDurable() {
    drain();
  }

  @Override
  public void completed(long tag, int result) {
    if (tag == SharedSync.TAG) {
      sync.completed(observer);
      drain();
      return;
    }
    Batch b = find(tag);
    if (b == null) {
      return;
    }
    b.bytesDone += Math.max(0, result);
    if (--b.writesOutstanding == 0) {
      writing--;
      if (!b.failed && b.bytesDone < b.bytesAsked) {
        // A short transfer left part of the record unwritten: as failed as an EIO, never acked.
        fail(
            b,
            new IoOpException(
                IoOpException.Op.WRITE_DURABLE,
                5,
                b.position,
                b.bytesAsked,
                "short write: " + b.bytesDone + " of " + b.bytesAsked + " bytes"));
      }
      // A batch failed meanwhile is never durable, never applied.
      if (!b.failed && sync != null) {
        b.written = true;
      } else if (!b.failed) {
        b.durable = true;
        observer.recordWritten(b.ops, b.recordBytes(), System.nanoTime() - b.submitNanos);
      }
    }
    drain();
  }

  @Override
  public void failed(long tag, IoOpException error) {
    if (tag == SharedSync.TAG) {
      Batch first = sync.failed();
      if (first != null) {
        fail(first, error);
      }
      drain();
      return;
    }
    Batch b = find(tag);
    if (b == null) {
      return;
    }
    if (--b.writesOutstanding == 0) {
      writing--;
    }
    if (!b.failed) {
      fail(b, error);
    }
    drain();
  }

  /** Applies durable records in sequence order, then issues what waited for a slot. */
  private void drain() {
    while (!sealed.isEmpty()) {
      Batch head = sealed.peek();
      if (head.failed) {
        if (head.writesOutstanding > 0) {
          break;
        }
        buffers.release(sealed.poll());
        continue;
      }
      if (!head.durable) {
        break;
      }
      sealed.poll();
      bytesWritten += head.recordBytes();
      records++;
      listener.apply(head);
      lastAppliedSeq = head.seq;
      // The buffer goes back first, so that a write an acknowledgement issues can take it; the
      // batch only once every acknowledgement ran, as they are read from it.
      buffers.release(head);
      for (int i = 0; i < head.acks.size(); i++) {
        head.acks.get(i).complete(null, null);
      }
      buffers.recycle(head);
    }
    if (failure == null) {
      submitReady();
      owner.slotFreed();
    }
    if (sync != null) {
      sync.startIfIdle(writing);
    }
    submitQuietly();
  }

  /** Fails {@code from} and every later record, and the journal with them. */
  void fail(Batch from, IoOpException cause) {
    if (failure == null) {
      failure =
          new StoreException(
              StoreException.Code.IO_ERROR,
              "shard "
                  + shard
                  + " journal write of record "
                  + from.seq
                  + " failed: "
                  + cause.getMessage(),
              cause);
      listener.journalFailed(cause);
    }
    boolean on = false;
    for (int i = 0; i < sealed.size(); i++) {
      Batch b = sealed.get(i);
      on |= b == from;
      if (on) {
        failBatch(b, failure);
      }
    }
    owner.failOpen(failure);
  }

  static void failBatch(Batch b, StoreException why) {
    b.failed = true;
    for (StoreCompletion<Void> ack : b.acks) {
      ack.complete(null, why);
    }
    b.acks.clear();
  }

  /** Fails everything sealed or in flight (the shard is closing without waiting). */
  void abandon(StoreException why) {
    if (sync != null) {
      sync.forget();
    }
    // The shard frees its arena right after; batch-owned arenas go too, so no reservation outlives
    // the shard.
    for (int i = 0; i < sealed.size(); i++) {
      Batch b = sealed.get(i);
      failBatch(b, why);
      buffers.release(b);
    }
    sealed.clear();
  }
}
