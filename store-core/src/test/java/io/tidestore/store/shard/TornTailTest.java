package io.tidestore.store.shard;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tidestore.store.api.CleanerPolicy;
import io.tidestore.store.api.JournalFlush;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.engine.StoreLayout;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.RecordHeader;
import io.tidestore.store.testing.LogCapture;
import io.tidestore.store.testing.StoreHarness;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Damages one record of a journal (a flipped byte anywhere its checksums cover, or the record wiped
 * as if never written) and checks that replay applies exactly the records before it.
 */
class TornTailTest {
  private static final int OBJECTS = 24;

  @TempDir Path root;

  record Rec(long seq, long fileOffset, RecordHeader header) {}

  static byte[] content(int i) {
    byte[] b = new byte[3000 + i];
    new Random(i).nextBytes(b);
    return b;
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
  void replayStopsAtTheFirstDamagedRecord(int trial) throws IOException {
    Random r = new Random(trial);
    Path dir = Files.createDirectories(root.resolve("t" + trial));
    try (StoreHarness h = new StoreHarness(dir, trial, noCheckpoints())) {
      for (int i = 0; i < OBJECTS; i++) {
        h.write(new ObjectKey(1, "o" + i), 0, content(i));
      }
      Path file = StoreLayout.of(dir).space(0).path();
      List<Rec> recs = records(h.disk.durableBytes(file));
      assertEquals(OBJECTS, recs.size());
      int k = trial == 13 ? OBJECTS - 1 : 1 + r.nextInt(OBJECTS - 1); // 13: the newest record
      Rec victim = recs.get(k);
      if (trial % 3 == 0) {
        h.disk.overwrite(file, victim.fileOffset(), new byte[(int) victim.header().length()]);
      } else {
        long at;
        if (r.nextBoolean()) {
          at = victim.fileOffset() + r.nextInt(64 + victim.header().metaLength());
        } else {
          at =
              victim.fileOffset()
                  + (long) victim.header().metaBlocks() * Blocks.SIZE
                  + r.nextInt(Blocks.SIZE * victim.header().dataBlocks());
        }
        h.disk.corrupt(file, at);
      }
      List<LogRecord> mountLog = LogCapture.during(ShardMount.class, h::crashAndRemount);
      // Records after the damaged one are still there: the mount says so, as a warning. Damage to
      // the last record is a torn tail, an everyday crash: no warning.
      LogRecord mounted = mountLog.getLast();
      java.util.regex.Matcher later =
          java.util.regex.Pattern.compile("at least (\\d+) later record")
              .matcher(mounted.getMessage());
      if (k < OBJECTS - 1) {
        assertEquals(java.util.logging.Level.WARNING, mounted.getLevel(), mounted.getMessage());
        org.junit.jupiter.api.Assertions.assertTrue(
            later.find() && Integer.parseInt(later.group(1)) >= 1, mounted.getMessage());
      } else {
        assertEquals(java.util.logging.Level.INFO, mounted.getLevel(), mounted.getMessage());
        org.junit.jupiter.api.Assertions.assertFalse(later.find(), mounted.getMessage());
      }
      for (int i = 0; i < OBJECTS; i++) {
        ObjectKey key = new ObjectKey(1, "o" + i);
        if (i < k) {
          assertArrayEquals(content(i), h.read(key, 0, 10_000), "record before the damage");
        } else {
          StoreException e = assertThrows(StoreException.class, () -> h.read(key, 0, 10));
          assertEquals(StoreException.Code.NOT_FOUND, e.code());
        }
      }
    }
  }

  /** A test config whose shard never checkpoints: a mount replays every record. */
  static StoreConfig noCheckpoints() {
    return new StoreConfig(
        64 << 10,
        64,
        1_000_000L,
        4,
        1L << 40,
        CleanerPolicy.GREEDY,
        6,
        2,
        JournalFlush.SHARED_FDATASYNC,
        StoreConfig.DEFAULT_OVERPROVISION_PERCENT);
  }

  /** Walks the journal in a shard image: segments in allocation order (lowest first). */
  static List<Rec> records(byte[] image) {
    MemorySegment img = MemorySegment.ofArray(image);
    List<Rec> out = new ArrayList<>();
    long first = 2L * Blocks.SIZE;
    int segBytes = StoreHarness.SEGMENT_BYTES;
    long expected = 1;
    for (long seg = first; seg + segBytes <= image.length; seg += segBytes) {
      long pos = 0;
      while (pos + Blocks.SIZE <= segBytes) {
        RecordHeader h = RecordHeader.peek(img.asSlice(seg + pos), (int) (segBytes - pos));
        if (h == null || h.seq() != expected) {
          break;
        }
        out.add(new Rec(h.seq(), seg + pos, h));
        expected++;
        pos += h.length();
      }
    }
    return out;
  }
}
