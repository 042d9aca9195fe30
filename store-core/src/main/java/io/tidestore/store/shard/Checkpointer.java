package io.tidestore.store.shard;

import io.tidestore.store.checkpoint.Checkpoint;
import io.tidestore.store.checkpoint.CheckpointCodec;
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
 */
final class Checkpointer implements IoCompletion {
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
  private long written;

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

  private void write(long seq) {
    if (ctx.health.readOnly() || ctx.freeSlots() < 1) {
      requested = !ctx.health.readOnly();
      return;
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
    pendingSeq = seq;
    journalBytesAtLast = journal.bytesWritten();
    ctx.queue.writeDurable(slot.file(), slot.offset(), image, this, gen);
    ctx.submitQuietly();
  }

  @Override
  public void completed(long tag, int result) {
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
