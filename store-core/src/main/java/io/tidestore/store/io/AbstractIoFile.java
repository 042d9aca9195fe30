package io.tidestore.store.io;

import java.nio.file.Path;

/**
 * What every backend's {@link IoFile} shares: its queue, its path, whether it is a block device,
 * and the count of its operations in flight, which {@link AbstractIoQueue} keeps so that closing a
 * file under a running operation is refused the same way everywhere.
 */
public abstract class AbstractIoFile implements IoFile {
  private final AbstractIoQueue<?> queue;
  private final Path path;
  private final boolean blockDevice;

  /** Operations on this file prepared and not yet delivered (owner thread only). */
  int inFlight;

  protected AbstractIoFile(AbstractIoQueue<?> queue, Path path, boolean blockDevice) {
    this.queue = queue;
    this.path = path;
    this.blockDevice = blockDevice;
  }

  final AbstractIoQueue<?> queue() {
    return queue;
  }

  /** Whether the file is still open; closing a closed file does nothing. */
  protected abstract boolean isOpen();

  @Override
  public final Path path() {
    return path;
  }

  @Override
  public final boolean isBlockDevice() {
    return blockDevice;
  }

  /** On the owner thread, with no operation on this file in flight. */
  @Override
  public final void close() {
    queue.close(this);
  }

  @Override
  public String toString() {
    return path.toString();
  }
}
