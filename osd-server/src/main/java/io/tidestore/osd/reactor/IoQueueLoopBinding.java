package io.tidestore.osd.reactor;

import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.unix.FileDescriptor;
import io.tidestore.store.io.IoQueue;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Reaps an {@link IoQueue}'s completions on the Netty event loop that owns the queue, with no
 * helper thread and no spinning: the seam where a shard's ring meets its socket loop.
 *
 * <ul>
 *   <li>io_uring: the queue's eventfd (registered with the ring, IORING_REGISTER_EVENTFD) is
 *       registered with the loop's epoll as an {@link EpollIoHandle}; when it turns readable the
 *       loop drains it and calls {@link IoQueue#poll()}. With DEFER_TASKRUN the kernel signals the
 *       eventfd when completion work is queued, and poll() enters the kernel to run it.
 *   <li>FileChannel fallback (no fd): the queue's workers call a listener that schedules one {@code
 *       poll()} task on the loop; a flag coalesces bursts into one task.
 * </ul>
 *
 * <p>Threading: {@link #bind} and {@link #close()} must run on the loop thread, which must also be
 * the queue's owner (create the queue inside {@code loop.execute}). The loop must be an epoll loop
 * ({@code MultiThreadIoEventLoopGroup} with {@code EpollIoHandler.newFactory()}) when the queue has
 * a completion fd.
 */
public final class IoQueueLoopBinding implements AutoCloseable {
  private final IoQueue queue;
  private final CompletionFdHandle handle;
  private IoRegistration registration;
  private long wakeups;

  private IoQueueLoopBinding(IoQueue queue, CompletionFdHandle handle) {
    this.queue = queue;
    this.handle = handle;
  }

  /**
   * Binds {@code queue} to {@code loop}; call on the loop thread.
   *
   * @throws IOException the loop refused the registration
   */
  public static IoQueueLoopBinding bind(IoEventLoop loop, IoQueue queue) throws IOException {
    if (!loop.inEventLoop()) {
      throw new IllegalStateException("bind on the event loop thread that owns the queue");
    }
    int fd = queue.completionFd();
    if (fd < 0) {
      IoQueueLoopBinding binding = new IoQueueLoopBinding(queue, null);
      AtomicBoolean scheduled = new AtomicBoolean();
      Runnable pollTask =
          () -> {
            scheduled.set(false);
            binding.wakeups++;
            queue.poll();
          };
      queue.setCompletionListener(
          () -> {
            if (scheduled.compareAndSet(false, true)) {
              loop.execute(pollTask);
            }
          });
      return binding;
    }
    if (!loop.isCompatible(CompletionFdHandle.class)) {
      throw new IllegalArgumentException(
          "the queue wakes through an eventfd; bind it to an epoll event loop");
    }
    CompletionFdHandle handle = new CompletionFdHandle(fd);
    IoQueueLoopBinding binding = new IoQueueLoopBinding(queue, handle);
    handle.binding = binding;
    try {
      // On the loop thread register() completes at once: the handler registers synchronously.
      binding.registration = loop.register(handle).syncUninterruptibly().getNow();
    } catch (RuntimeException e) {
      throw new IOException("registering eventfd " + fd + " with the event loop", e);
    }
    binding.registration.submit(EpollIoOps.EPOLLIN);
    return binding;
  }

  /** How many times the loop woke up to reap completions. */
  public long wakeups() {
    return wakeups;
  }

  private void onReadable() {
    wakeups++;
    // Drain first: a completion posted after this read signals the eventfd again.
    handle.drain();
    queue.poll();
  }

  /** Stops watching; the queue (and its eventfd) stay open and belong to the caller. */
  @Override
  public void close() {
    if (registration != null) {
      registration.cancel();
      registration = null;
    }
  }

  /** The eventfd as an epoll handle; Netty calls it on the loop thread. */
  private static final class CompletionFdHandle implements EpollIoHandle {
    private final FileDescriptor fd;
    private final ByteBuffer counter = ByteBuffer.allocateDirect(8);
    IoQueueLoopBinding binding;

    CompletionFdHandle(int fd) {
      // Not closed by us: the queue owns the eventfd.
      this.fd = new FileDescriptor(fd);
    }

    @Override
    public FileDescriptor fd() {
      return fd;
    }

    @Override
    public void handle(IoRegistration registration, IoEvent event) {
      binding.onReadable();
    }

    /** Reads the eventfd counter (eventfd(2): one 8-byte read resets it; EAGAIN when zero). */
    void drain() {
      try {
        counter.clear();
        fd.read(counter, 0, 8);
      } catch (IOException e) {
        // Non-blocking eventfd with nothing to read: the next poll() still reaps everything ready.
      }
    }

    @Override
    public void close() {
      if (binding != null) {
        binding.close();
      }
    }
  }
}
