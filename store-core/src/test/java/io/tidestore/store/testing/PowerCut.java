package io.tidestore.store.testing;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

/**
 * Simulates the power cut a process died in: applies the {@link UndoLog} that process left (it ran
 * with {@code -Dtidestore.test.powerloss=DIR}, see {@link PowerLoss}) to the files it wrote, so
 * that they hold what a device could hold after losing power at that moment. Run it only once the
 * process is dead (kill -9): a write after the cut would not be in the log.
 *
 * <p>Every write that was not durable is reverted, wholly or torn: each 512 B sector independently
 * keeps its new bytes or gets its old ones back, as a device without atomic multi-sector writes may
 * leave it. Writes are undone newest first, and a sector a newer write settled (it was durable, or
 * its new bytes were kept) is left alone by older ones, so a sector ends holding one of the
 * versions it really went through. The files are plain files or block devices (a store on a raw
 * device): both are written through a {@link FileChannel} and flushed.
 */
public final class PowerCut {
  private PowerCut() {}

  /** How the writes a cut loses are lost. */
  public enum Tear {
    /** Every write not durable is lost whole. */
    WHOLE,
    /** Each 512 B sector of a write not durable independently keeps its new or its old bytes. */
    SECTORS
  }

  /**
   * What a cut did.
   *
   * @param writesDurable writes in the log that had become durable (left alone)
   * @param writesCut writes that were not durable (reverted wholly or in part)
   * @param sectorsReverted 512 B sectors given their old bytes back
   * @param sectorsKept sectors of writes not durable that kept their new bytes (a tear)
   */
  public record Result(int writesDurable, int writesCut, long sectorsReverted, long sectorsKept) {}

  /**
   * Applies and then deletes the undo log in {@code dir}; {@code seed} picks the tears. A missing
   * log (nothing was written) cuts nothing.
   */
  public static Result apply(Path dir, Tear tear, long seed) throws IOException {
    UndoLogFile.Contents log = UndoLogFile.read(dir);
    TreeMap<Long, List<UndoLogFile.Run>> newestFirst = new TreeMap<>(Comparator.reverseOrder());
    for (UndoLogFile.Run r : log.runs()) {
      newestFirst.computeIfAbsent(r.id(), id -> new ArrayList<>()).add(r);
    }
    Random random = new Random(seed);
    Map<String, Set<Long>> settled = new HashMap<>();
    Map<String, FileChannel> files = new HashMap<>();
    int durable = 0;
    int cut = 0;
    long reverted = 0;
    long kept = 0;
    try {
      for (Map.Entry<Long, List<UndoLogFile.Run>> write : newestFirst.entrySet()) {
        boolean isDurable = log.durable().contains(write.getKey());
        if (isDurable) {
          durable++;
        } else {
          cut++;
        }
        for (UndoLogFile.Run r : write.getValue()) {
          Set<Long> done = settled.computeIfAbsent(r.path(), p -> new HashSet<>());
          FileChannel f = isDurable ? null : file(files, r.path());
          for (int s = 0; s < r.sectors(); s++) {
            long sector = r.offset() / UndoLog.SECTOR + s;
            if (isDurable) {
              done.add(sector);
            } else if (done.contains(sector)) {
              // A newer write settled it: its bytes are the ones the cut leaves.
            } else if (tear == Tear.SECTORS && random.nextBoolean()) {
              done.add(sector);
              kept++;
            } else {
              ByteBuffer old = r.oldSector(s);
              while (old.hasRemaining()) {
                f.write(old, sector * UndoLog.SECTOR + (long) old.position());
              }
              reverted++;
            }
          }
        }
      }
      for (FileChannel f : files.values()) {
        f.force(true);
      }
    } finally {
      for (FileChannel f : files.values()) {
        f.close();
      }
    }
    discard(dir);
    return new Result(durable, cut, reverted, kept);
  }

  /** Deletes the undo log in {@code dir} unapplied: the process stopped without a power cut. */
  public static void discard(Path dir) throws IOException {
    Files.deleteIfExists(dir.resolve(UndoLogFile.NAME));
    Files.deleteIfExists(dir.resolve(UndoLogFile.COMPACTING));
  }

  private static FileChannel file(Map<String, FileChannel> files, String path) throws IOException {
    FileChannel f = files.get(path);
    if (f == null) {
      f = FileChannel.open(Path.of(path), StandardOpenOption.WRITE);
      files.put(path, f);
    }
    return f;
  }
}
