package io.tidestore.bench.io;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The JDK peer: one FileChannel opened with O_DIRECT, shared by {@code depth} threads that each
 * write and force(false) (fdatasync) in a loop. Thread-safe: FileChannel's positional write and
 * force are; the sequential cursor is atomic.
 */
final class ChannelWriter implements AutoCloseable {
  private final FileChannel channel;
  private final int blockSize;
  private final long fileSize;
  private final AtomicLong sequential = new AtomicLong();

  ChannelWriter(Path path, int blockSize, long fileSize) throws IOException {
    this.channel =
        FileChannel.open(
            path, StandardOpenOption.READ, StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT);
    this.blockSize = blockSize;
    this.fileSize = fileSize;
  }

  /** A per-thread buffer aligned for O_DIRECT. */
  ByteBuffer newBuffer(byte fill) {
    ByteBuffer buffer = ByteBuffer.allocateDirect(blockSize + 4096).alignedSlice(4096);
    buffer.limit(blockSize);
    while (buffer.hasRemaining()) {
      buffer.put(fill);
    }
    return buffer;
  }

  long nextSequentialOffset() {
    long span = fileSize - fileSize % blockSize;
    return Math.floorMod(sequential.getAndAdd(blockSize), span);
  }

  long randomOffset(java.util.SplittableRandom random) {
    return (long) random.nextInt((int) (fileSize / blockSize)) * blockSize;
  }

  /** One durable write: pwrite then fdatasync, as a thread of a blocking server would do. */
  void durableWrite(ByteBuffer buffer, long offset) throws IOException {
    buffer.clear().limit(blockSize);
    while (buffer.hasRemaining()) {
      channel.write(buffer, offset + buffer.position());
    }
    channel.force(false);
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
