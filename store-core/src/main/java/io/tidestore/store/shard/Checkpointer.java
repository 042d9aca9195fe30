package io.tidestore.store.shard;

import io.tidestore.store.checkpoint.Checkpoint;
import io.tidestore.store.checkpoint.CheckpointCodec;
import io.tidestore.store.io.IoCompletion;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.io.IoOpException;
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
  private final LogShard shard;
  private final IoFile[] slots;
  private long generation;
  private long durableSeq;
  private long pendingSeq;
  private boolean inFlight;
  private boolean requested;
  private long journalBytesAtLast;
  private Arena imageArena;
  private long written;

  Checkpointer(LogShard shard, IoFile[] slots, long generation, long durableSeq) {
    this.shard = shard;
    this.slots = slots;
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
    long since = shard.journal.bytesWritten() - journalBytesAtLast;
    if (since >= shard.config.checkpointEveryBytes() || requested) {
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
    } else if (shard.journal.lastAppliedSeq() > durableSeq || generation == 0) {
      write(shard.journal.lastAppliedSeq());
    }
  }

  private void write(long seq) {
    if (shard.readOnly() || shard.queue.capacity() - shard.queue.inFlight() < 1) {
      requested = !shard.readOnly();
      return;
    }
    long gen = generation + 1;
    Checkpoint header =
        new Checkpoint(
            gen,
            seq,
            shard.journal.epoch(),
            shard.journal.nextRecordSegment(),
            shard.journal.nextRecordOffset(),
            shard.index.nextId(),
            0,
            0);
    // Not charged here: the index's INDEX reservation already covers its image (IndexMemory), so a
    // checkpoint, which frees segments, is never refused for memory.
    imageArena = Arena.ofShared();
    MemorySegment image =
        CheckpointCodec.encode(
            imageArena, shard.shard, shard.superblock.storeId(), header, shard.index, shard.crc);
    inFlight = true;
    pendingSeq = seq;
    journalBytesAtLast = shard.journal.bytesWritten();
    shard.queue.writeDurable(slots[(int) (gen & 1)], 0, image, this, gen);
    shard.submitQuietly();
  }

  @Override
  public void completed(long tag, int result) {
    generation = tag;
    durableSeq = pendingSeq;
    written++;
    finish();
    shard.segments.reclaim(durableSeq);
    if (requested) {
      requested = false;
      request();
    }
    shard.retryParked();
  }

  @Override
  public void failed(long tag, IoOpException error) {
    finish();
    requested = false;
    shard.checkpointFailed(error);
  }

  private void finish() {
    inFlight = false;
    imageArena.close();
    imageArena = null;
  }

  void close() {
    for (IoFile f : slots) {
      f.close();
    }
  }
}
