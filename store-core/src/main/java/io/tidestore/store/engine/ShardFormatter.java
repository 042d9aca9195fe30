package io.tidestore.store.engine;

import com.sun.nio.file.ExtendedOpenOption;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.Superblock;
import io.tidestore.store.shard.ShardFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;
import java.util.function.IntToLongFunction;
import java.util.zip.CRC32C;

/**
 * Writes the volume or the shard files for mkfs: every byte preallocated by writing zeros (not
 * fallocate alone, whose unwritten extents turn every O_DSYNC write into a metadata journal
 * commit), then both superblock copies, then fsync. Runs at disk speed: 4 MiB O_DIRECT writes (no
 * page cache to fill and flush), several shards at once so the device sees more than one write in
 * flight. Falls back to buffered writes where O_DIRECT is refused (tmpfs).
 */
final class ShardFormatter {
  /** Bytes per zero-filling write. */
  private static final int CHUNK = 4 << 20;

  /** Shards written at once: enough to keep a device's queue busy, few enough for a small box. */
  static final int PARALLEL_SHARDS = 4;

  private ShardFormatter() {}

  /**
   * Creates one shard file per entry of {@code superblocks} in {@code dir}, each {@code bytes}
   * long, with that shard's two superblock copies.
   */
  static void format(Path dir, List<List<Superblock>> superblocks, long bytes) throws IOException {
    writeAll(superblocks, s -> ShardFiles.data(dir, s), s -> 0L, bytes);
  }

  /**
   * Creates the volume {@code file}: the space of shard s at {@code s * bytes}, {@code bytes} long,
   * with that shard's two superblock copies at its start.
   */
  static void formatVolume(Path file, List<List<Superblock>> superblocks, long bytes)
      throws IOException {
    writeAll(superblocks, s -> file, s -> s * bytes, bytes);
  }

  private static void writeAll(
      List<List<Superblock>> superblocks,
      IntFunction<Path> pathOf,
      IntToLongFunction baseOf,
      long bytes)
      throws IOException {
    int threads = Math.min(PARALLEL_SHARDS, superblocks.size());
    ExecutorService pool =
        Executors.newFixedThreadPool(
            threads, r -> Thread.ofPlatform().name("mkfs").daemon().unstarted(r));
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int s = 0; s < superblocks.size(); s++) {
        Path path = pathOf.apply(s);
        long base = baseOf.applyAsLong(s);
        List<Superblock> copies = superblocks.get(s);
        done.add(
            pool.submit(
                () -> {
                  try {
                    writeShard(path, base, copies, bytes);
                  } catch (IOException e) {
                    throw new UncheckedIOException(e);
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UncheckedIOException u) {
        throw u.getCause();
      }
      throw new IOException("mkfs failed: " + e.getCause(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("mkfs interrupted", e);
    } finally {
      pool.shutdownNow();
    }
  }

  private static void writeShard(Path path, long base, List<Superblock> copies, long bytes)
      throws IOException {
    ByteBuffer zeros = ByteBuffer.allocateDirect(CHUNK + Blocks.SIZE).alignedSlice(Blocks.SIZE);
    FileChannel ch;
    try {
      ch = open(path, true);
    } catch (UnsupportedOperationException | IOException e) {
      ch = open(path, false);
    }
    try (FileChannel c = ch) {
      for (long off = 0; off < bytes; ) {
        zeros.clear().limit((int) Math.min(CHUNK, bytes - off));
        off += c.write(zeros, base + off);
      }
      CRC32C crc = new CRC32C();
      for (Superblock sb : copies) {
        ByteBuffer block = ByteBuffer.allocateDirect(2 * Blocks.SIZE).alignedSlice(Blocks.SIZE);
        block.limit(Blocks.SIZE);
        sb.encode(MemorySegment.ofBuffer(block), crc);
        c.write(block, base + (long) sb.copy() * Blocks.SIZE);
      }
      c.force(true);
    }
  }

  private static FileChannel open(Path path, boolean direct) throws IOException {
    List<OpenOption> options =
        new ArrayList<>(
            List.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.READ));
    if (direct) {
      options.add(ExtendedOpenOption.DIRECT);
    }
    return FileChannel.open(path, options.toArray(OpenOption[]::new));
  }
}
