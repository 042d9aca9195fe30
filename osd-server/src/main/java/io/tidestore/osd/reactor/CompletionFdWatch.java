package io.tidestore.osd.reactor;

import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.epoll.Native;
import io.netty.channel.unix.FileDescriptor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.io.IOException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Watches an eventfd on a reactor: when it becomes readable the reactor thread drains it and runs a
 * callback. This is how a store shard's I/O queue ({@code IoQueue.completionFd()}) wakes the loop
 * that owns it, so completions are reaped on the owner thread with no helper thread and no
 * spinning, even while the loop is blocked in epoll_wait.
 *
 * <p>Epoll transport only (the fd joins the loop's epoll set through Netty's {@link
 * EpollIoHandle}); on another transport {@link #watch} fails. The fd stays the caller's: closing
 * the watch unregisters it and never closes the fd. The callback runs on the reactor thread.
 */
public final class CompletionFdWatch implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(CompletionFdWatch.class.getName());

  private final IoEventLoop loop;
  private volatile IoRegistration registration;

  private CompletionFdWatch(IoEventLoop loop) {
    this.loop = loop;
  }

  /** Starts watching {@code eventFd} on {@code reactor}; the future completes once registered. */
  public static Future<CompletionFdWatch> watch(Reactor reactor, int eventFd, Runnable onReadable) {
    IoEventLoop loop = reactor.loop();
    Promise<CompletionFdWatch> promise = loop.newPromise();
    if (!loop.isCompatible(Handle.class)) {
      promise.setFailure(
          new IOException("completion fds can be watched on the epoll transport only"));
      return promise;
    }
    CompletionFdWatch watch = new CompletionFdWatch(loop);
    loop.register(new Handle(eventFd, onReadable))
        .addListener(
            f -> {
              if (!f.isSuccess()) {
                promise.setFailure(f.cause());
                return;
              }
              IoRegistration registration = (IoRegistration) f.getNow();
              registration.submit(EpollIoOps.EPOLLIN);
              watch.registration = registration;
              promise.setSuccess(watch);
            });
    return promise;
  }

  /** Stops watching; the fd is left open. */
  @Override
  public void close() {
    IoRegistration current = registration;
    if (current != null) {
      loop.submit(current::cancel).syncUninterruptibly();
    }
  }

  private static final class Handle implements EpollIoHandle {
    private final FileDescriptor fd;
    private final Runnable onReadable;

    Handle(int eventFd, Runnable onReadable) {
      this.fd = new FileDescriptor(eventFd);
      this.onReadable = onReadable;
    }

    @Override
    public FileDescriptor fd() {
      return fd;
    }

    @Override
    public void handle(IoRegistration registration, IoEvent event) {
      try {
        // Readable means the counter is non-zero, so this read does not block; draining first
        // means a completion that lands during the callback signals again.
        Native.eventFdRead(fd.intValue());
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "draining eventfd " + fd.intValue() + " failed", e);
      }
      onReadable.run();
    }

    @Override
    public void close() {
      // The fd belongs to the I/O queue that created it.
    }
  }
}
