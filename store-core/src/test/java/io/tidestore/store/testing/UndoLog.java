package io.tidestore.store.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a power cut would take back from the files a process writes: for every write not yet durable
 * by the I/O layer's own account, the bytes it overwrote. {@link UndoLoggingQueue} records each
 * write here before passing it down and says when it becomes durable; {@link PowerCut} later
 * reverts what is left in the log. One log per process and directory, shared by all its queues (a
 * sync through one queue's descriptor flushes what another queue wrote to the same file), so every
 * method is synchronized.
 *
 * <p>Crash safety: the log is written with plain {@code write}s, never flushed. It only has to
 * survive the death of the daemon by kill -9, whose page cache survives; the power cut it simulates
 * is applied afterwards, by another process, from what the page cache holds. Each record is
 * appended before the operation it concerns goes further (a write's old bytes before the write is
 * passed down, a durability mark before the completion reaches the store), so no store action can
 * outrun the log.
 *
 * <p>Growth: a durable write's old bytes are no longer needed. Once the file passes {@link
 * #COMPACT_BYTES} it is rewritten holding only the writes still pending, and swapped in with an
 * atomic rename.
 */
public final class UndoLog {
  private static final System.Logger LOG = System.getLogger(UndoLog.class.getName());
  static final long COMPACT_BYTES = 8L << 20;
  static final int SECTOR = 512;

  /** A write not yet durable. */
  private static final class Pending extends UndoLogFile.Run {
    boolean completed;

    /** Sectors a newer durable write has overwritten: reverting them would undo that write. */
    final BitSet settled = new BitSet();

    Pending(long id, String path, long offset, byte[] old) {
      super(id, path, offset, old);
    }
  }

  private final Path dir;
  private final Path file;
  private final Map<String, Integer> paths = new HashMap<>();
  private final Map<String, FileChannel> readers = new HashMap<>();
  private final LinkedHashMap<Long, Pending> pending = new LinkedHashMap<>();
  private FileChannel out;
  private long size;
  private long nextId = 1;
  private long compactions;

  private UndoLog(Path dir) throws IOException {
    this.dir = dir;
    this.file = dir.resolve(UndoLogFile.NAME);
    this.out = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.APPEND);
  }

  /**
   * Starts a log in {@code dir}. A log left there by an earlier process was neither applied nor
   * discarded ({@link PowerCut}): starting over it would mix two lives' writes, so it is refused.
   */
  public static UndoLog create(Path dir) throws IOException {
    Files.createDirectories(dir);
    Path old = dir.resolve(UndoLogFile.NAME);
    if (Files.exists(old)) {
      throw new IOException(
          old
              + " is left from an earlier process: apply it (PowerCut.apply) or discard it"
              + " (PowerCut.discard) first");
    }
    return new UndoLog(dir);
  }

  /** The log file. */
  public Path file() {
    return file;
  }

  /** How often the file was compacted (a test sees that it does not grow without bound). */
  public synchronized long compactions() {
    return compactions;
  }

  /** Writes not yet durable. */
  public synchronized int pendingWrites() {
    return pending.size();
  }

  /**
   * Records the {@code length} bytes at {@code offset} of {@code path} that a write is about to
   * overwrite; returns the write's id for {@link #completed} and {@link #durable}.
   */
  synchronized long before(Path path, long offset, long length) {
    String name = path.toString();
    try {
      for (Pending p : pending.values()) {
        if (!p.completed
            && p.path().equals(name)
            && p.offset() < offset + length
            && offset < p.end()) {
          // Both writes are in flight: which lands last is undefined, and so are the old bytes.
          LOG.log(
              System.Logger.Level.WARNING,
              "power-loss fixture: a write at {0} ({1} bytes) of {2} overlaps one still in"
                  + " flight at {3}: the bytes it overwrites are not certain",
              offset,
              length,
              name,
              p.offset());
        }
      }
      byte[] old = readOld(name, path, offset, Math.toIntExact(length));
      Pending p = new Pending(nextId++, name, offset, old);
      size += UndoLogFile.append(out, p.record(index(name), 0, p.sectors()));
      pending.put(p.id(), p);
      return p.id();
    } catch (IOException e) {
      throw new UncheckedIOException("power-loss fixture: cannot log a write to " + name, e);
    }
  }

  /** Write {@code id} completed (successfully or not): a later sync of its file covers it. */
  synchronized void completed(long id) {
    Pending p = pending.get(id);
    if (p != null) {
      p.completed = true;
    }
  }

  /** The writes to {@code path} that have completed: what a sync issued now makes durable. */
  synchronized long[] completedOn(Path path) {
    String name = path.toString();
    return pending.values().stream()
        .filter(p -> p.completed && p.path().equals(name))
        .mapToLong(Pending::id)
        .toArray();
  }

  /** These writes are durable now (those already durable are skipped). */
  synchronized void durable(long... ids) {
    List<Long> now = new ArrayList<>();
    for (long id : ids) {
      if (pending.containsKey(id)) {
        now.add(id);
      }
    }
    if (now.isEmpty()) {
      return;
    }
    try {
      size += UndoLogFile.append(out, UndoLogFile.durableRecord(now));
      for (long id : now) {
        settleOlder(pending.remove(id));
      }
      if (size > COMPACT_BYTES) {
        compact();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("power-loss fixture: cannot update " + file, e);
    }
  }

  /** Marks the sectors {@code d} overwrote in every older pending write of its file as settled. */
  private void settleOlder(Pending d) {
    for (Pending p : pending.values()) {
      if (p.id() < d.id()
          && p.path().equals(d.path())
          && p.offset() < d.end()
          && d.offset() < p.end()) {
        long from = Math.max(p.offset(), d.offset());
        long to = Math.min(p.end(), d.end());
        p.settled.set((int) ((from - p.offset()) / SECTOR), (int) ((to - p.offset()) / SECTOR));
      }
    }
  }

  /**
   * Rewrites the log with only the pending writes' unsettled runs, then renames it over the old
   * one: a kill -9 at any point leaves either log whole.
   */
  private void compact() throws IOException {
    Path tmp = dir.resolve(UndoLogFile.COMPACTING);
    long written = 0;
    try (FileChannel c =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      for (Map.Entry<String, Integer> e : paths.entrySet()) {
        written += UndoLogFile.append(c, UndoLogFile.pathRecord(e.getValue(), e.getKey()));
      }
      for (Pending p : pending.values()) {
        int sectors = p.sectors();
        for (int s = p.settled.nextClearBit(0); s < sectors; ) {
          int next = p.settled.nextSetBit(s);
          int end = next < 0 ? sectors : next;
          written += UndoLogFile.append(c, p.record(paths.get(p.path()), s, end));
          s = p.settled.nextClearBit(end);
        }
      }
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    out.close();
    out = FileChannel.open(file, StandardOpenOption.APPEND);
    size = written;
    compactions++;
  }

  private int index(String name) throws IOException {
    Integer i = paths.get(name);
    if (i == null) {
      i = paths.size();
      paths.put(name, i);
      size += UndoLogFile.append(out, UndoLogFile.pathRecord(i, name));
    }
    return i;
  }

  /**
   * The bytes at {@code offset}, read through the page cache: the store's earlier O_DIRECT writes
   * to this range have completed (an overlap with one in flight is warned about above), and a
   * completed direct write invalidates the cached pages, so the read sees them. Past the end of the
   * file (never, with files written out in full at mkfs) the old bytes are zeros.
   */
  private byte[] readOld(String name, Path path, long offset, int length) throws IOException {
    FileChannel r = readers.get(name);
    if (r == null) {
      r = FileChannel.open(path, StandardOpenOption.READ);
      readers.put(name, r);
    }
    ByteBuffer b = ByteBuffer.allocate(length);
    while (b.hasRemaining()) {
      if (r.read(b, offset + b.position()) < 0) {
        break;
      }
    }
    return b.array();
  }
}
