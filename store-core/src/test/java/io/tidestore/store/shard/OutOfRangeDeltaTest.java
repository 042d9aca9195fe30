package io.tidestore.store.shard;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ObjectStat;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.engine.StoreLayout;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.DeltaDescriptor;
import io.tidestore.store.record.DeltaWriter;
import io.tidestore.store.record.RecordDescriptor;
import io.tidestore.store.testing.LogCapture;
import io.tidestore.store.testing.StoreHarness;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A journal record whose crcs all match but whose deltas name a block or a size past the largest
 * object (a bug in a writer, or damage that kept the crc): the mount refuses it as a corrupt record
 * and stops replay there, as at a torn one, instead of growing an object's block array to the block
 * it names (a WRITE of block 2^22 would take 32 MiB of heap, one near 2^31 16 GiB) or applying a
 * size no object can have.
 */
class OutOfRangeDeltaTest {
  private static final ObjectKey O0 = new ObjectKey(1, "o0");
  private static final ObjectKey O1 = new ObjectKey(1, "o1");
  private static final ObjectKey O2 = new ObjectKey(1, "o2");

  @TempDir Path dir;

  /**
   * Which record is damaged, and how: the records are 1: write o0, 2: write o1 (a CREATE, then a
   * WRITE of blocks 0 and 1), 3: truncate o0 to one block (a TRUNCATE), 4: write o2. Record 2's
   * WRITE gets another first block, or record 3's TRUNCATE another size.
   */
  enum Damage {
    WRITE_OF_BLOCK_2_POW_22(2, 1L << 22, "WRITE delta of blocks [4194304, 4194304 + 2)"),
    TRUNCATE_TO_2_POW_44_BYTES(3, 1L << 44, "TRUNCATE size 17592186044416"),
    TRUNCATE_TO_2_POW_43_PLUS_1_BYTES(3, (1L << 43) + 1, "TRUNCATE size 8796093022209");

    final long seq;
    final long badValue;
    final String refusal;

    Damage(long seq, long badValue, String refusal) {
      this.seq = seq;
      this.badValue = badValue;
      this.refusal = refusal;
    }

    boolean ofTheWrite() {
      return seq == 2;
    }

    /** What the refusal names as the limit: the largest object in blocks, or in bytes. */
    String limit() {
      return ofTheWrite() ? "16384 blocks" : "[0, 67108864]";
    }
  }

  @ParameterizedTest
  @EnumSource(Damage.class)
  void replayStopsAtTheRecordInsteadOfApplyingIt(Damage damage) throws IOException {
    byte[] data = new byte[2 * Blocks.SIZE];
    Arrays.fill(data, (byte) 7);
    try (StoreHarness h = new StoreHarness(dir, 1, TornTailTest.noCheckpoints())) {
      h.write(O0, 0, data);
      h.write(O1, 0, data);
      h.call((StoreCompletion<Void> c) -> h.shard.truncate(O0, Blocks.SIZE, c));
      h.write(O2, 0, data);
      long footprintBefore = ((LogShard) h.shard).index().footprintBytes();
      Path file = StoreLayout.of(dir).space(0).path();
      List<TornTailTest.Rec> records = TornTailTest.records(h.disk.durableBytes(file));
      assertEquals(4, records.size());
      damage(h, file, records.get((int) damage.seq - 1), damage);

      String mounted = remountCapturingTheLog(h);

      assertTrue(mounted.contains(damage.refusal), mounted);
      assertTrue(mounted.contains(damage.limit()), mounted);
      assertEquals(damage.seq - 1, ((LogShard) h.shard).replayedRecords(), mounted);
      long footprint = ((LogShard) h.shard).index().footprintBytes();
      assertTrue(
          footprint <= footprintBefore, "index grew from " + footprintBefore + " to " + footprint);
      // The records before the damaged one applied, it and those after did not.
      assertArrayEquals(data, h.read(O0, 0, data.length), "o0 as record 1 wrote it");
      assertEquals(data.length, stat(h, O0).size(), "the truncate in record 3 never applied");
      if (damage.seq > 2) {
        assertArrayEquals(data, h.read(O1, 0, data.length));
      } else {
        assertNotFound(h, O1);
      }
      assertNotFound(h, O2);
    }
  }

  /** Sets the field {@code damage} names in record {@code rec}, its crc made right again. */
  private static void damage(StoreHarness h, Path file, TornTailTest.Rec rec, Damage damage)
      throws IOException {
    int metaBytes = rec.header().metaBlocks() * Blocks.SIZE;
    MemorySegment meta =
        MemorySegment.ofArray(new byte[metaBytes])
            .copyFrom(
                MemorySegment.ofArray(h.disk.durableBytes(file))
                    .asSlice(rec.fileOffset(), metaBytes));
    // The WRITE follows the CREATE of "o1"; the TRUNCATE is the record's only delta.
    int delta =
        RecordDescriptor.HEADER_LENGTH + (damage.ofTheWrite() ? DeltaWriter.createLength(2) : 0);
    int field = delta + 1 + 8; // after the type and the object id
    if (damage.ofTheWrite()) {
      assertEquals(DeltaDescriptor.WRITE, meta.get(ValueLayout.JAVA_BYTE, delta));
      assertEquals(0, meta.get(Blocks.INT, field), "first block");
      meta.set(Blocks.INT, field, (int) damage.badValue);
    } else {
      assertEquals(DeltaDescriptor.TRUNCATE, meta.get(ValueLayout.JAVA_BYTE, delta));
      assertEquals(Blocks.SIZE, meta.get(Blocks.LONG, field), "size");
      meta.set(Blocks.LONG, field, damage.badValue);
    }
    rec.header().encode(meta, new CRC32C());
    h.disk.overwrite(file, rec.fileOffset(), meta.toArray(ValueLayout.JAVA_BYTE));
  }

  /**
   * Crashes and remounts; returns the mount's log line (it names where replay stopped, and why).
   */
  private static String remountCapturingTheLog(StoreHarness h) throws IOException {
    return LogCapture.during(ShardMount.class, h::crashAndRemount).getLast().getMessage();
  }

  private static ObjectStat stat(StoreHarness h, ObjectKey key) throws IOException {
    return h.call((StoreCompletion<ObjectStat> c) -> h.shard.stat(key, c));
  }

  private static void assertNotFound(StoreHarness h, ObjectKey key) {
    StoreException e = assertThrows(StoreException.class, () -> stat(h, key));
    assertEquals(StoreException.Code.NOT_FOUND, e.code(), key.toString());
  }
}
