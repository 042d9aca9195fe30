package io.tidestore.bench.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The one file every I/O benchmark writes: fully written once (like fio's layout phase) so that
 * random overwrites never allocate extents, and on a real disk, not tmpfs (O_DIRECT needs it).
 */
final class BenchFile {
  /** Default location; override with {@code -Dtidestore.bench.file}. */
  static final String DEFAULT_PATH = "/var/tmp/tidestore-bench/data";

  private BenchFile() {}

  static Path path() {
    return Path.of(System.getProperty("tidestore.bench.file", DEFAULT_PATH));
  }

  /** Creates {@code path} and writes zeros up to {@code size} unless it already has that size. */
  static void prepare(Path path, long size) throws IOException {
    Files.createDirectories(path.toAbsolutePath().getParent());
    try (FileChannel channel =
        FileChannel.open(
            path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.READ)) {
      if (channel.size() >= size) {
        return;
      }
      ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
      for (long at = channel.size() & ~((1L << 20) - 1); at < size; at += zeros.capacity()) {
        zeros.clear();
        while (zeros.hasRemaining()) {
          channel.write(zeros, at + zeros.position());
        }
      }
      channel.force(true);
    }
  }
}
