package io.tidestore.store.io.uring;

import io.tidestore.store.io.AbstractIoFile;
import java.nio.file.Path;

/**
 * An {@link io.tidestore.store.io.IoFile} of the io_uring backend: an O_DIRECT fd, and its slot in
 * the ring's registered file table when registration worked (then SQEs name the slot with
 * IOSQE_FIXED_FILE and the kernel skips the per-op fd lookup). Both are -1 once closed.
 */
final class IoUringFile extends AbstractIoFile {
  private final IoUringQueue queue;
  int fd;
  int fixedIndex;

  IoUringFile(IoUringQueue queue, Path path, boolean blockDevice, int fd, int fixedIndex) {
    super(queue, path, blockDevice);
    this.queue = queue;
    this.fd = fd;
    this.fixedIndex = fixedIndex;
  }

  @Override
  protected boolean isOpen() {
    return fd >= 0;
  }

  @Override
  public long size() {
    return queue.size(this);
  }
}
