package io.tidestore.store.io.uring;

import io.tidestore.store.io.IoFile;
import java.nio.file.Path;

/**
 * An {@link IoFile} of the io_uring backend: an O_DIRECT fd, and its slot in the ring's registered
 * file table when registration worked (then SQEs name the slot with IOSQE_FIXED_FILE and the kernel
 * skips the per-op fd lookup).
 */
final class IoUringFile implements IoFile {
  private final IoUringQueue queue;
  private final Path path;
  private final boolean blockDevice;
  int fd;
  int fixedIndex;

  /** Operations on this file not yet completed; closing with any is a caller bug. */
  int inFlight;

  IoUringFile(IoUringQueue queue, Path path, boolean blockDevice, int fd, int fixedIndex) {
    this.queue = queue;
    this.path = path;
    this.blockDevice = blockDevice;
    this.fd = fd;
    this.fixedIndex = fixedIndex;
  }

  IoUringQueue queue() {
    return queue;
  }

  boolean isOpen() {
    return fd >= 0;
  }

  @Override
  public Path path() {
    return path;
  }

  @Override
  public long size() {
    return queue.size(this);
  }

  @Override
  public boolean isBlockDevice() {
    return blockDevice;
  }

  @Override
  public void close() {
    queue.closeFile(this);
  }

  @Override
  public String toString() {
    return path.toString();
  }
}
