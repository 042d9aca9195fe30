package io.tidestore.store.testing;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The on-disk form of an {@link UndoLog}: an append-only sequence of records, each written with one
 * {@code write} before the operation it concerns goes further.
 *
 * <pre>
 *   'P' int index, short n, n bytes UTF-8     a file's path, named once per log
 *   'W' long id, int path, long offset, int n, n bytes
 *                                             write {@code id} will overwrite these old bytes
 *   'D' int n, n longs                        these writes are durable now
 * </pre>
 *
 * A write may have several 'W' records (runs of its range; a compacted log drops the sectors a
 * newer durable write covers). A record cut short at the end (the process died while appending it)
 * is ignored: its operation had not been passed down yet.
 */
final class UndoLogFile {
  static final String NAME = "undo.log";

  /** A compacted log being written, renamed over {@link #NAME} once whole. */
  static final String COMPACTING = NAME + ".compacting";

  private static final byte PATH = 'P';
  private static final byte WRITE = 'W';
  private static final byte DURABLE = 'D';

  private UndoLogFile() {}

  /** One run of a write's range and the bytes it held before the write. */
  static class Run {
    private final long id;
    private final String path;
    private final long offset;
    private final byte[] old;

    Run(long id, String path, long offset, byte[] old) {
      this.id = id;
      this.path = path;
      this.offset = offset;
      this.old = old;
    }

    long id() {
      return id;
    }

    String path() {
      return path;
    }

    long offset() {
      return offset;
    }

    /** The old bytes of sector {@code s} of the run, ready to write back. */
    ByteBuffer oldSector(int s) {
      return ByteBuffer.wrap(old, s * UndoLog.SECTOR, UndoLog.SECTOR).slice();
    }

    int sectors() {
      return old.length / UndoLog.SECTOR;
    }

    long end() {
      return offset + old.length;
    }

    /**
     * The 'W' record of sectors [{@code from}, {@code to}) of the run, its file named {@code path}.
     */
    ByteBuffer record(int path, int from, int to) {
      int length = (to - from) * UndoLog.SECTOR;
      ByteBuffer b = ByteBuffer.allocate(1 + 8 + 4 + 8 + 4 + length);
      b.put(WRITE).putLong(id).putInt(path).putLong(offset + (long) from * UndoLog.SECTOR);
      return b.putInt(length).put(old, from * UndoLog.SECTOR, length).flip();
    }
  }

  /** Everything a log says: runs in log order, and the writes that became durable. */
  record Contents(List<Run> runs, Set<Long> durable) {}

  static ByteBuffer pathRecord(int index, String path) {
    byte[] name = path.getBytes(StandardCharsets.UTF_8);
    ByteBuffer b = ByteBuffer.allocate(1 + 4 + 2 + name.length);
    b.put(PATH).putInt(index).putShort((short) name.length).put(name);
    return b.flip();
  }

  static ByteBuffer durableRecord(List<Long> ids) {
    ByteBuffer b = ByteBuffer.allocate(1 + 4 + 8 * ids.size());
    b.put(DURABLE).putInt(ids.size());
    for (long id : ids) {
      b.putLong(id);
    }
    return b.flip();
  }

  /** Appends {@code record} whole (the channel is in append mode). */
  static long append(FileChannel out, ByteBuffer record) throws IOException {
    long n = record.remaining();
    while (record.hasRemaining()) {
      out.write(record);
    }
    return n;
  }

  /** Reads the log in {@code dir}; empty contents when there is none. */
  static Contents read(Path dir) throws IOException {
    Path file = dir.resolve(NAME);
    List<Run> runs = new ArrayList<>();
    Set<Long> durable = new HashSet<>();
    if (!Files.exists(file)) {
      return new Contents(runs, durable);
    }
    Map<Integer, String> paths = new HashMap<>();
    try (InputStream raw = Files.newInputStream(file);
        DataInputStream in = new DataInputStream(new BufferedInputStream(raw, 1 << 16))) {
      while (true) {
        int type = in.read();
        if (type < 0) {
          break;
        }
        try {
          switch (type) {
            case PATH -> {
              int index = in.readInt();
              byte[] name = new byte[in.readUnsignedShort()];
              in.readFully(name);
              paths.put(index, new String(name, StandardCharsets.UTF_8));
            }
            case WRITE -> {
              long id = in.readLong();
              String path = paths.get(in.readInt());
              long offset = in.readLong();
              byte[] old = new byte[in.readInt()];
              in.readFully(old);
              if (path == null) {
                throw new IOException(file + ": a write names a path never named before it");
              }
              runs.add(new Run(id, path, offset, old));
            }
            case DURABLE -> {
              long[] ids = new long[in.readInt()];
              for (int i = 0; i < ids.length; i++) {
                ids[i] = in.readLong();
              }
              for (long id : ids) {
                durable.add(id);
              }
            }
            default ->
                throw new IOException(file + ": unknown record type " + type + ": not an undo log");
          }
        } catch (EOFException cutShort) {
          break; // the process died while appending this record; its operation never went down
        }
      }
    }
    return new Contents(runs, durable);
  }
}
