package io.tidestore.osd.reactor;

import io.netty.channel.IoHandle;
import io.netty.channel.IoRegistration;
import io.netty.channel.unix.FileDescriptor;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * An {@link io.tidestore.store.io.IoQueue}'s completion eventfd as a Netty {@link IoHandle}: the
 * loop watches it and, when it turns readable, drains it and runs {@code onReadable} on the loop
 * thread. One subclass per transport, since each Netty transport takes its own handle type.
 *
 * <p>Not closed by us: the queue owns the eventfd. Loop thread only.
 */
abstract sealed class CompletionFdHandle implements IoHandle
    permits EpollCompletionFdHandle, IoUringCompletionFdHandle {
  final FileDescriptor fd;
  private final Runnable onReadable;
  private final ByteBuffer counter = ByteBuffer.allocateDirect(8);
  IoRegistration registration;
  private boolean unregistered;

  CompletionFdHandle(int fd, Runnable onReadable) {
    this.fd = new FileDescriptor(fd);
    this.onReadable = onReadable;
  }

  /** Starts watching through {@code registration}, which the loop just made for this handle. */
  abstract void start(IoRegistration registration);

  /** Stops watching and gives the registration back; the eventfd stays open. */
  abstract void stop();

  /** Drains the eventfd, then reaps: a completion posted after the drain signals it again. */
  final void readable() {
    try {
      counter.clear();
      // eventfd(2): one 8-byte read resets the counter; EAGAIN (non-blocking) when it is zero.
      fd.read(counter, 0, 8);
    } catch (IOException e) {
      // Nothing to read: the reap below still takes everything ready.
    }
    onReadable.run();
  }

  /** Netty calls this once the registration is gone: the loop holds nothing of ours any more. */
  @Override
  public final void unregistered() {
    unregistered = true;
  }

  final boolean isUnregistered() {
    return unregistered;
  }

  /** Netty closes the handle when the loop shuts down. */
  @Override
  public final void close() {
    stop();
  }
}
