package io.tidestore.store.shard;

import io.tidestore.store.checkpoint.Checkpoint;
import io.tidestore.store.checkpoint.CheckpointCodec;
import io.tidestore.store.io.Errno;
import io.tidestore.store.io.IoCompletion;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.journal.Journal;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Writes index checkpoints: after {@code checkpointEveryBytes} of journal, when the cleaner needs
 * segments released, and at close. A checkpoint is taken between two applied records, so it is
 * exactly the state after record {@code lastSeq}; once it is durable, segments whose records are
 * all covered and hold no live block become free. One checkpoint in flight at a time. Owner thread
 * only.
 *
 * <p>A checkpoint goes to the slot the previous one is not in, with one O_DIRECT + RWF_DSYNC write,
 * so a failed one leaves the previous checkpoint valid. When the file system under the checkpoint
 * files is full (ENOSPC, or a short write) it is retried after {@link #RETRY_NANOS}: nothing was
 * acknowledged on its account, the journal still holds every change, and a retry writes the whole
 * image again, so retrying is honest. Any other error (EIO) turns the shard read-only.
 */
final class Checkpointer implements IoCompletion {
  /** How long a checkpoint that found the file system full waits before it tries again. */
  static final long RETRY_NANOS = 1_000_000_000L;

  private final ShardContext ctx;
  private final Journal journal;
  private final CheckpointSlot[] slots;

  /** Told when a checkpoint freed segments (waiting writes may go on). */
  private final Runnable spaceFreed;

  private long generation;
  private long durableSeq;
  private long pendingSeq;
  private boolean inFlight;
  private boolean requested;
  private long journalBytesAtLast;
  private Arena imageArena;
  private long imageBytes;
  private long written;
  private long failedNoSpace;

  /** While the file system is full: no new attempt before this System.nanoTime(). */
  private long retryAt;

  private boolean waitingForSpace;

  Checkpointer(
      ShardContext ctx,
      Journal journal,
      CheckpointSlot[] slots,
      long generation,
      long durableSeq,
      Runnable spaceFreed) {
    this.ctx = ctx;
    this.journal = journal;
    this.slots = slots;
    this.spaceFreed = spaceFreed;
    this.generation = generation;
    this.durableSeq = durableSeq;
  }

  boolean busy() {
    return inFlight || requested;
  }

  long written() {
    return written;
  }

  long durableSeq() {
    return durableSeq;
  }

  /** Called right after record {@code seq} applied. */
  void afterApply(long seq) {
    long since = journal.bytesWritten() - journalBytesAtLast;
    if (since >= ctx.config.checkpointEveryBytes() || requested) {
      if (!inFlight) {
        requested = false;
        write(seq);
      } else {
        requested = true;
      }
    }
  }

  /** Asks for a checkpoint of the current applied state as soon as possible. */
  void request() {
    if (inFlight) {
      requested = true;
    } else if (journal.lastAppliedSeq() > durableSeq || generation == 0) {
      write(journal.lastAppliedSeq());
    }
  }

  /**
   * {@link #request} when the shard closes: at once, even while a checkpoint that found the file
   * system full waits out {@link #RETRY_NANOS}, since no retry comes after the close and room may
   * have been made meanwhile. Still full, it fails again and the next mount replays the journal.
   */
  void requestAtClose() {
    retryAt = System.nanoTime();
    request();
  }

  /** Checkpoints that found the file system full (each retried later). */
  long failedNoSpace() {
    return failedNoSpace;
  }

  /** From the loop pass: retries a checkpoint that found the file system full, once it is due. */
  void retryIfDue(long now) {
    if (waitingForSpace && !inFlight && now - retryAt >= 0) {
      requested = false;
      write(journal.lastAppliedSeq());
    }
  }

  private void write(long seq) {
    if (ctx.health.readOnly() || ctx.freeSlots() < 1) {
      requested = !ctx.health.readOnly();
      return;
    }
    if (waitingForSpace && System.nanoTime() - retryAt < 0) {
      return; // retryIfDue writes the state applied by then
    }
    long gen = generation + 1;
    Checkpoint header =
        new Checkpoint(
            gen,
            seq,
            journal.epoch(),
            journal.nextRecordSegment(),
            journal.nextRecordOffset(),
            ctx.index.nextId(),
            0,
            0);
    // Not charged here: the index's INDEX reservation already covers its image (IndexMemory), so a
    // checkpoint, which frees segments, is never refused for memory.
    imageArena = Arena.ofShared();
    MemorySegment image =
        CheckpointCodec.encode(
            imageArena, ctx.shard, ctx.superblock.storeId(), header, ctx.index, ctx.crc);
    CheckpointSlot slot = slots[(int) (gen & 1)];
    if (image.byteSize() > slot.capacity()) {
      imageArena.close();
      imageArena = null;
      ctx.health.checkpointFailed(
          new IoOpException(
              IoOpException.Op.WRITE_DURABLE,
              28,
              slot.offset(),
              image.byteSize(),
              "index checkpoint of "
                  + image.byteSize()
                  + " bytes exceeds its slot of "
                  + slot.capacity()
                  + " bytes on the device"));
      return;
    }
    inFlight = true;
    imageBytes = image.byteSize();
    pendingSeq = seq;
    journalBytesAtLast = journal.bytesWritten();
    ctx.queue.writeDurable(slot.file(), slot.offset(), image, this, gen);
    ctx.submitQuietly();
  }

  @Override
  public void completed(long tag, int result) {
    if (result < imageBytes) {
      failed(
          tag,
          new IoOpException(
              IoOpException.Op.WRITE_DURABLE,
              Errno.ENOSPC,
              0,
              imageBytes,
              "short write: " + result + " of " + imageBytes + " bytes"));
      return;
    }
    if (waitingForSpace) {
      waitingForSpace = false;
      ctx.health.checkpointRecovered(tag);
    }
    generation = tag;
    durableSeq = pendingSeq;
    written++;
    finish();
    ctx.segments.reclaim(durableSeq);
    if (requested) {
      requested = false;
      request();
    }
    spaceFreed.run();
  }

  @Override
  public void failed(long tag, IoOpException error) {
    finish();
    requested = false;
    if (error.errno() == Errno.ENOSPC) {
      // The other slot still holds the previous checkpoint; try again later.
      failedNoSpace++;
      retryAt = System.nanoTime() + RETRY_NANOS;
      if (!waitingForSpace) {
        waitingForSpace = true;
        ctx.health.checkpointDeferred(error, generation);
      }
      return;
    }
    ctx.health.checkpointFailed(error);
  }

  private void finish() {
    inFlight = false;
    imageArena.close();
    imageArena = null;
  }

  void close() {
    for (CheckpointSlot s : slots) {
      s.file().close();
    }
  }
}
