package io.tidestore.store.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A power-cut simulation of a disk: file contents live in memory in two versions, what the page
 * cache shows ({@code visible}) and what survives a power cut ({@code durable}). Completed plain
 * writes stay volatile until a sync; durable writes (RWF_DSYNC) and syncs make data durable when
 * they complete. {@link #crash} throws away every volatile write, and decides for every write still
 * in flight whether none, all, or a random subset of its 4 KiB blocks reached the media (a torn
 * write). Files are loaded from the real file system on first open, so a store made by the real
 * mkfs can be mounted on it. Used from one test thread at a time.
 */
public final class SimDisk {
  static final class SimFile {
    byte[] visible;
    byte[] durable;
    final List<long[]> unsynced = new ArrayList<>();

    SimFile(byte[] content) {
      visible = content.clone();
      durable = content.clone();
    }

    long size() {
      return visible.length;
    }

    static byte[] ensure(byte[] a, long size) {
      return size <= a.length ? a : Arrays.copyOf(a, (int) size);
    }

    void write(long offset, byte[] data, boolean durableNow) {
      visible = ensure(visible, offset + data.length);
      System.arraycopy(data, 0, visible, (int) offset, data.length);
      if (durableNow) {
        durable = ensure(durable, offset + data.length);
        System.arraycopy(data, 0, durable, (int) offset, data.length);
      } else {
        unsynced.add(new long[] {offset, data.length});
      }
    }

    void sync() {
      durable = visible.clone();
      unsynced.clear();
    }
  }

  private final Map<Path, SimFile> files = new HashMap<>();
  private final Random random;
  private SimIoQueue live;
  private long crashes;

  public SimDisk(long seed) {
    this.random = new Random(seed);
  }

  Random random() {
    return random;
  }

  SimFile file(Path path, boolean create) throws IOException {
    Path key = path.toAbsolutePath().normalize();
    SimFile f = files.get(key);
    if (f == null) {
      if (Files.exists(key)) {
        f = new SimFile(Files.readAllBytes(key));
      } else if (create) {
        f = new SimFile(new byte[0]);
      } else {
        throw new IOException("ENOENT: " + key);
      }
      files.put(key, f);
    }
    return f;
  }

  /** A new queue on this disk, owned by the calling thread; it replaces any earlier one. */
  public SimIoQueue newQueue() {
    live = new SimIoQueue(this, random.nextLong());
    return live;
  }

  /**
   * Cuts the power: the current queue dies with its operations uncompleted, each in-flight write
   * lands not at all, wholly, or as a random subset of its blocks, and everything not durable is
   * lost.
   */
  public void crash() {
    crashes++;
    List<SimIoQueue.Op> inFlight = live == null ? List.of() : live.die();
    live = null;
    for (SimFile f : files.values()) {
      f.visible = f.durable.clone();
      f.unsynced.clear();
    }
    for (SimIoQueue.Op op : inFlight) {
      if (!op.isWrite()) {
        continue;
      }
      int mode = random.nextInt(3);
      if (mode == 0) {
        continue;
      }
      byte[] data = op.bytes();
      for (int b = 0; b < data.length; b += 4096) {
        if (mode == 1 || random.nextBoolean()) {
          byte[] block = Arrays.copyOfRange(data, b, Math.min(data.length, b + 4096));
          op.file().write(op.offset() + b, block, true);
        }
      }
    }
  }

  public long crashes() {
    return crashes;
  }

  /** A copy of what survives a power cut in {@code path}. */
  public byte[] durableBytes(Path path) throws IOException {
    return file(path, false).durable.clone();
  }

  /** Overwrites durable and visible bytes of {@code path} (media damage, a lost tail). */
  public void overwrite(Path path, long offset, byte[] bytes) throws IOException {
    SimFile f = file(path, false);
    System.arraycopy(bytes, 0, f.visible, (int) offset, bytes.length);
    System.arraycopy(bytes, 0, f.durable, (int) offset, bytes.length);
  }

  /** Flips one byte of a file's durable and visible contents (media corruption). */
  public void corrupt(Path path, long offset) throws IOException {
    SimFile f = file(path, false);
    f.visible[(int) offset] ^= (byte) 0x5a;
    f.durable[(int) offset] ^= (byte) 0x5a;
  }
}
