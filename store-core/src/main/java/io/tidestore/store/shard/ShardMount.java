package io.tidestore.store.shard;

import io.tidestore.store.api.ExtentCacheHook;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.checkpoint.Checkpoint;
import io.tidestore.store.checkpoint.CheckpointCodec;
import io.tidestore.store.index.BlockEntry;
import io.tidestore.store.index.IndexMemory;
import io.tidestore.store.index.ObjectEntry;
import io.tidestore.store.index.ObjectIndex;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.journal.SyncSharing;
import io.tidestore.store.memory.BudgetedArena;
import io.tidestore.store.memory.MemoryBudget;
import io.tidestore.store.memory.MemoryUse;
import io.tidestore.store.owner.Owner;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.CorruptRecordException;
import io.tidestore.store.record.Superblock;
import io.tidestore.store.record.SuperblockDescriptor;
import io.tidestore.store.segment.SegmentTable;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Mounts a shard: newest valid superblock, newest valid index checkpoint, replay of the records
 * after it, a new epoch in the superblock, and a {@link LogShard} ready on the calling (owner)
 * thread. Blocking; runs before the shard serves anything.
 */
public final class ShardMount {
  private static final System.Logger LOG = System.getLogger(ShardMount.class.getName());

  private ShardMount() {}

  /** Everything mount learns from disk; fsck inspects it without mounting. */
  public record Loaded(
      Superblock superblock,
      String superblockNote,
      Checkpoint checkpoint,
      String checkpointNote,
      ObjectIndex index,
      SegmentTable segments,
      Replay.Result replay,
      boolean olderFormat) {}

  /**
   * Mounts shard {@code shard} of the store in {@code dir}; the caller owns {@code queue}. Every
   * native buffer and the index are charged to {@code budget} until the shard closes; a shard that
   * does not fit fails here with {@link io.tidestore.store.memory.MemoryBudgetExceededException}.
   */
  public static ShardStore mount(
      ShardSpace space,
      IoQueue queue,
      StoreConfig config,
      ExtentCacheHook cache,
      MemoryBudget budget,
      SyncSharing syncSharing,
      Owner owner)
      throws IOException {
    long start = System.nanoTime();
    int shard = space.shard();
    OpenedSpace opened = OpenedSpace.open(queue, space, true);
    IoFile file = opened.file;
    Arena arena =
        BudgetedArena.ofShared(budget, MemoryUse.IO_BUFFERS, "I/O buffers of shard " + shard);
    ObjectIndex owned = null;
    try {
      SyncIo io = new SyncIo(queue);
      Loaded loaded = load(io, opened, shard, budget);
      owned = loaded.index;
      loaded.index.attachMemory(new IndexMemory(budget, "index of shard " + shard));
      Superblock sb = loaded.superblock;
      Replay.Result r = loaded.replay;
      if (r.headSegment() >= 0) {
        loaded.segments.state(r.headSegment(), SegmentTable.OPEN);
      }
      // A new epoch before any new record: records written from now on outrank any stale record
      // an earlier mount left past the end of the journal.
      Superblock next = sb.next(sb.epoch() + 1);
      MemorySegment block = arena.allocate(Blocks.SIZE, Blocks.SIZE);
      next.encode(block, new CRC32C());
      io.writeDurable(file, opened.base + (long) next.copy() * Blocks.SIZE, block);
      if (loaded.olderFormat) {
        // Both copies at this format: an older build must find no superblock it reads and refuse
        // the store, rather than mount its stale copy and miss the records written from now on.
        next = next.next(next.epoch());
        next.encode(block, new CRC32C());
        io.writeDurable(file, opened.base + (long) next.copy() * Blocks.SIZE, block);
        LOG.log(
            System.Logger.Level.INFO,
            "shard "
                + shard
                + ": store format upgraded to version "
                + SuperblockDescriptor.VERSION
                + " (older Tidestore builds refuse it from now on)");
      }
      ShardContext ctx =
          new ShardContext(shard, queue, file, next, config, loaded.index, loaded.segments, cache);
      LogShard logShard =
          new LogShard(ctx, arena, opened.slots, loaded.checkpoint, r, syncSharing, owner);
      LOG.log(
          r.laterRecords() > 0 ? System.Logger.Level.WARNING : System.Logger.Level.INFO,
          String.format(
              "shard %d mounted in %.1f ms: %s; replayed %d records (%d bytes) up to seq %d,"
                  + " stopped at %s; epoch %d; %d objects, %d of %d segments free",
              shard,
              (System.nanoTime() - start) / 1e6,
              loaded.checkpointNote,
              r.records(),
              r.bytes(),
              r.lastSeq(),
              r.describeStop(),
              next.epoch(),
              loaded.index.objectCount(),
              loaded.segments.freeCount(),
              loaded.segments.count()));
      if (r.records() > 0) {
        logShard.requestCheckpoint();
      }
      return logShard;
    } catch (IOException | RuntimeException e) {
      opened.close();
      arena.close();
      if (owned != null) {
        owned.close();
      }
      throw e;
    }
  }

  /** Reads superblock and checkpoint and replays, without writing anything. */
  static Loaded load(SyncIo io, OpenedSpace space, int shard) throws IOException {
    return load(io, space, shard, MemoryBudget.unbounded());
  }

  /** As {@link #load(SyncIo, IoFile, IoFile[], int)}, its buffers charged to {@code budget}. */
  static Loaded load(SyncIo io, OpenedSpace space, int shard, MemoryBudget budget)
      throws IOException {
    IoFile file = space.file;
    CheckpointSlot[] slots = space.slots;
    CRC32C crc = new CRC32C();
    try (Arena arena =
        BudgetedArena.ofShared(budget, MemoryUse.IO_BUFFERS, "replay buffers of shard " + shard)) {
      MemorySegment two = arena.allocate(2L * Blocks.SIZE, Blocks.SIZE);
      if (io.read(file, space.base, two) < two.byteSize()) {
        throw new IOException(file.path() + " is too short to be a Tidestore shard");
      }
      Superblock sb = null;
      boolean olderFormat = false;
      StringBuilder note = new StringBuilder();
      for (int c = 0; c < 2; c++) {
        try {
          MemorySegment copy = two.asSlice((long) c * Blocks.SIZE, Blocks.SIZE);
          Superblock s = Superblock.decode(copy, crc);
          olderFormat |= Superblock.version(copy) < SuperblockDescriptor.VERSION;
          if (sb == null || s.generation() > sb.generation()) {
            sb = s;
          }
        } catch (CorruptRecordException e) {
          note.append("superblock copy ")
              .append(c)
              .append(": ")
              .append(e.getMessage())
              .append("; ");
        }
      }
      if (sb == null) {
        throw new IOException(
            file.path() + " has no valid superblock (" + note + "): not a Tidestore shard?");
      }
      if (sb.shard() != shard) {
        throw new IOException(file.path() + " holds shard " + sb.shard() + ", not " + shard);
      }
      ObjectIndex index = new ObjectIndex();
      Checkpoint ckpt = Checkpoint.EMPTY;
      String ckptNote = "no checkpoint";
      List<Checkpoint> candidates = new ArrayList<>();
      List<Integer> slotOf = new ArrayList<>();
      MemorySegment block = arena.allocate(Blocks.SIZE, Blocks.SIZE);
      MemorySegment zeros = arena.allocate(Blocks.SIZE, Blocks.SIZE);
      zeros.fill((byte) 0);
      for (int i = 0; i < 2; i++) {
        CheckpointSlot slot = slots[i];
        if (slot.file() == null
            || slot.file().size() < slot.offset() + Blocks.SIZE
            || io.read(slot.file(), slot.offset(), block) < Blocks.SIZE) {
          continue; // never written (a slot file created empty, or absent)
        }
        if (block.mismatch(zeros) < 0) {
          continue; // never written (a slot mkfs zeroed on a device)
        }
        try {
          candidates.add(CheckpointCodec.decodeHeader(block, shard, sb.storeId(), crc));
          slotOf.add(i);
        } catch (CorruptRecordException e) {
          ckptNote = "checkpoint slot " + i + " unusable (" + e.getMessage() + ")";
        }
      }
      List<Integer> order = new ArrayList<>();
      for (int i = 0; i < candidates.size(); i++) {
        order.add(i);
      }
      order.sort(Comparator.comparingLong(i -> -candidates.get(i).generation()));
      for (int i : order) {
        Checkpoint c = candidates.get(i);
        try (Arena img =
            BudgetedArena.ofShared(
                budget, MemoryUse.INDEX, "index checkpoint image of shard " + shard)) {
          CheckpointSlot slot = slots[slotOf.get(i)];
          long bytes = Blocks.roundUp(Blocks.SIZE + c.bodyLength());
          if (c.bodyLength() < 0 || bytes > slot.capacity()) {
            throw new CorruptRecordException(
                "checkpoint body of " + c.bodyLength() + " bytes does not fit its slot");
          }
          MemorySegment image = img.allocate(bytes, Blocks.SIZE);
          if (io.read(slot.file(), slot.offset(), image) < image.byteSize()) {
            throw new CorruptRecordException("checkpoint file is truncated");
          }
          ObjectIndex loadedIndex = new ObjectIndex();
          try {
            CheckpointCodec.load(image, c, loadedIndex, crc);
          } catch (CorruptRecordException | RuntimeException e) {
            loadedIndex.close();
            throw e;
          }
          index.close();
          index = loadedIndex;
          ckpt = c;
          ckptNote =
              "checkpoint "
                  + c.generation()
                  + " (seq "
                  + c.lastSeq()
                  + ", "
                  + c.objectCount()
                  + " objects)";
          break;
        } catch (CorruptRecordException e) {
          LOG.log(
              System.Logger.Level.WARNING,
              "shard "
                  + shard
                  + ": checkpoint "
                  + c.generation()
                  + " is corrupt ("
                  + e.getMessage()
                  + "); trying an older one");
          ckptNote = "checkpoint " + c.generation() + " corrupt, older one used";
        }
      }
      // The index holds native memory from here on: whatever goes wrong, it is freed.
      try {
        SegmentTable segments = new SegmentTable(sb);
        for (ObjectEntry e : index.entries()) {
          for (int b = 0; b < e.blockSlots(); b++) {
            long entry = e.block(b);
            if (!BlockEntry.isHole(entry)) {
              int loc = BlockEntry.location(entry);
              int seg = segments.segmentOf(loc);
              if (seg < 0 || seg >= segments.count()) {
                throw new IOException(
                    "shard "
                        + shard
                        + ": checkpoint maps object "
                        + e.id
                        + " block "
                        + b
                        + " outside the segments");
              }
              segments.addLive(loc);
            }
          }
        }
        for (int s = 0; s < segments.count(); s++) {
          if (segments.live(s) > 0) {
            segments.state(s, SegmentTable.USED);
          }
        }
        Replay.Result r =
            new Replay(io, file, sb, segments, index, arena)
                .run(ckpt.lastSeq(), ckpt.epoch(), ckpt.nextSegment(), ckpt.nextOffset());
        return new Loaded(sb, note.toString(), ckpt, ckptNote, index, segments, r, olderFormat);
      } catch (IOException | RuntimeException e) {
        index.close();
        throw e;
      }
    }
  }
}
