package io.tidestore.osd.reactor;

import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.tidestore.store.io.IoQueue;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Reaps an {@link IoQueue}'s completions on the Netty event loop that owns the queue, with no
 * helper thread and no spinning: the seam where a shard's ring meets its socket loop.
 *
 * <ul>
 *   <li>io_uring queue: its eventfd (registered with the ring, IORING_REGISTER_EVENTFD) is watched
 *       by the loop: by its epoll ({@link EpollCompletionFdHandle}) or, on the io_uring transport,
 *       by a poll on the loop's own ring ({@link IoUringCompletionFdHandle}). When it turns
 *       readable the loop drains it and calls {@link IoQueue#poll()}. With DEFER_TASKRUN the kernel
 *       signals the eventfd when completion work is queued, and poll() enters the kernel to run it.
 *   <li>FileChannel fallback (no fd): the queue's workers call a listener that schedules one {@code
 *       poll()} task on the loop; a flag coalesces bursts into one task.
 * </ul>
 *
 * <p>Threading: {@link #bind} and {@link #close()} must run on the loop thread, which must also be
 * the queue's owner (create the queue inside {@code loop.execute}). A queue with a completion fd
 * needs an epoll or io_uring loop ({@code MultiThreadIoEventLoopGroup} with {@code
 * EpollIoHandler.newFactory()} or {@code IoUringIoHandler.newFactory()}).
 */
public final class IoQueueLoopBinding implements AutoCloseable {
  private final IoQueue queue;
  private CompletionFdHandle handle;
  private long wakeups;

  private IoQueueLoopBinding(IoQueue queue) {
    this.queue = queue;
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
    IoQueueLoopBinding binding = new IoQueueLoopBinding(queue);
    int fd = queue.completionFd();
    if (fd < 0) {
      AtomicBoolean scheduled = new AtomicBoolean();
      Runnable pollTask =
          () -> {
            scheduled.set(false);
            binding.onReadable();
          };
      queue.setCompletionListener(
          () -> {
            if (scheduled.compareAndSet(false, true)) {
              loop.execute(pollTask);
            }
          });
      return binding;
    }
    CompletionFdHandle handle;
    if (loop.isCompatible(EpollCompletionFdHandle.class)) {
      handle = new EpollCompletionFdHandle(fd, binding::onReadable);
    } else if (loop.isCompatible(IoUringCompletionFdHandle.class)) {
      handle = new IoUringCompletionFdHandle(fd, binding::onReadable);
    } else {
      throw new IllegalArgumentException(
          "the queue wakes through an eventfd; bind it to an epoll or io_uring event loop");
    }
    IoRegistration registration;
    try {
      // On the loop thread register() completes at once: the handler registers synchronously.
      registration = loop.register(handle).syncUninterruptibly().getNow();
    } catch (RuntimeException e) {
      throw new IOException("registering eventfd " + fd + " with the event loop", e);
    }
    binding.handle = handle;
    handle.start(registration);
    return binding;
  }

  /** How many times the loop woke up to reap completions. */
  public long wakeups() {
    return wakeups;
  }

  private void onReadable() {
    wakeups++;
    queue.poll();
  }

  /** Stops watching; the queue (and its eventfd) stay open and belong to the caller. */
  @Override
  public void close() {
    if (handle != null) {
      handle.stop(); // idempotent
    }
  }

  /** True once the loop has let go of the eventfd (no handle is needed for the fallback). */
  boolean released() {
    return handle == null || handle.isUnregistered();
  }
}
