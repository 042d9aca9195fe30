package io.tidestore.store.io.handoff;

import io.tidestore.store.io.AbstractIoFile;
import io.tidestore.store.io.IoFile;
import java.io.IOException;

/**
 * The owner's handle on a file the ring opened: operations name it on the owner, the I/O thread
 * hands the ring's own file to the ring, and the calls that need the ring itself (size, close) run
 * on the I/O thread while the owner waits.
 */
final class HandedOffFile extends AbstractIoFile {
  private final IoThreadQueue queue;
  private final IoFile delegate;

  /** Owner thread only. */
  private boolean closed;

  HandedOffFile(IoThreadQueue queue, IoFile delegate) {
    super(queue, delegate.path(), delegate.isBlockDevice());
    this.queue = queue;
    this.delegate = delegate;
  }

  /** The ring's file: for the I/O thread only. */
  IoFile delegate() {
    return delegate;
  }

  @Override
  protected boolean isOpen() {
    return !closed;
  }

  @Override
  public long size() {
    try {
      return queue.onIoThread(delegate::size);
    } catch (IOException e) {
      throw new IllegalStateException("size of " + path() + " on the I/O thread", e);
    }
  }

  /** Owner thread, nothing in flight on the file: closes the ring's file on the I/O thread. */
  void closeOnIoThread() {
    try {
      queue.onIoThread(
          () -> {
            delegate.close();
            return null;
          });
    } catch (IOException e) {
      throw new IllegalStateException("closing " + path() + " on the I/O thread", e);
    }
    closed = true;
  }
}
