package io.tidestore.store.shard;

import io.tidestore.store.io.IoCompletion;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.io.IoQueue;
import java.io.IOException;
import java.lang.foreign.MemorySegment;

/**
 * Blocking I/O on an {@link IoQueue} for mount, replay and fsck, which run before the shard serves
 * anything: prepare, submit, await the one completion. Owner thread only.
 */
final class SyncIo implements IoCompletion {
  private static final long TIMEOUT_NANOS = 60_000_000_000L;
  private final IoQueue queue;
  private boolean done;
  private int result;
  private IoOpException error;

  SyncIo(IoQueue queue) {
    this.queue = queue;
  }

  /** Reads into {@code buf}; returns the byte count (short at end of file). */
  int read(IoFile file, long offset, MemorySegment buf) throws IOException {
    reset();
    queue.read(file, offset, buf, this, 0);
    return await();
  }

  void writeDurable(IoFile file, long offset, MemorySegment buf) throws IOException {
    reset();
    queue.writeDurable(file, offset, buf, this, 0);
    int n = await();
    if (n != buf.byteSize()) {
      throw new IOException("short write of " + n + " bytes at " + offset + " to " + file.path());
    }
  }

  private void reset() {
    done = false;
    error = null;
  }

  private int await() throws IOException {
    queue.submit();
    long deadline = System.nanoTime() + TIMEOUT_NANOS;
    while (!done) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new IOException("I/O did not complete within 60 s");
      }
      queue.await(left);
    }
    if (error != null) {
      throw error;
    }
    return result;
  }

  @Override
  public void completed(long tag, int res) {
    done = true;
    result = res;
  }

  @Override
  public void failed(long tag, IoOpException e) {
    done = true;
    error = e;
  }
}
