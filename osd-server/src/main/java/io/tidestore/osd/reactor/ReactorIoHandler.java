package io.tidestore.osd.reactor;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoRegistration;
import java.util.Arrays;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Wraps a transport's {@link IoHandler} to add the end-of-pass hooks and utilization accounting.
 *
 * <p>Netty 4.2's {@code SingleThreadIoEventLoop.run()} loops {@code ioHandler.run(context);
 * runAllTasks(...)}: so the start of {@link #run} is exactly "after the previous pass's I/O events
 * and tasks, before the loop may block". Hooks run there; if they queue tasks, Netty's {@code
 * context.canBlock()} (evaluated afterwards, inside the delegate) sees them and does not block.
 *
 * <p>Idle time is the time inside the delegate's {@code run} minus the active I/O time the
 * transport reports through {@link IoHandlerContext#reportActiveIoTime} (both epoll and io_uring
 * handlers do when asked); everything else on the thread is busy.
 *
 * <p>Netty channels find the real handler through {@code IoRegistration.attachment()}, which comes
 * from the delegate's {@link #register}, so io_uring channels' casts still work. Every method but
 * {@link #wakeup} runs on the reactor thread.
 */
final class ReactorIoHandler implements IoHandler {
  private static final Logger LOG = Logger.getLogger(ReactorIoHandler.class.getName());

  private final IoHandler delegate;
  private final ReactorStats stats;
  private final CountingContext counting = new CountingContext();
  private PassHook[] hooks = new PassHook[0];
  private long lastReturnNanos;

  ReactorIoHandler(IoHandler delegate, ReactorStats stats) {
    this.delegate = delegate;
    this.stats = stats;
  }

  /** Reactor thread only. */
  void addHook(PassHook hook) {
    PassHook[] grown = Arrays.copyOf(hooks, hooks.length + 1);
    grown[hooks.length] = hook;
    hooks = grown;
  }

  /** Reactor thread only; true when the hook was registered (compared by identity). */
  @SuppressWarnings("ReferenceEquality") // a hook is removed as the instance that was added
  boolean removeHook(PassHook hook) {
    for (int i = 0; i < hooks.length; i++) {
      if (hooks[i] == hook) {
        PassHook[] shrunk = new PassHook[hooks.length - 1];
        System.arraycopy(hooks, 0, shrunk, 0, i);
        System.arraycopy(hooks, i + 1, shrunk, i, hooks.length - i - 1);
        hooks = shrunk;
        return true;
      }
    }
    return false;
  }

  @Override
  public void initialize() {
    lastReturnNanos = System.nanoTime();
    delegate.initialize();
  }

  @Override
  public int run(IoHandlerContext context) {
    runHooks();
    long enter = System.nanoTime();
    counting.reset(context);
    int handled = delegate.run(counting);
    long exit = System.nanoTime();
    long inRun = exit - enter;
    long active = Math.min(counting.activeNanos, inRun);
    stats.recordPass((enter - lastReturnNanos) + active, inRun - active);
    lastReturnNanos = exit;
    return handled;
  }

  private void runHooks() {
    PassHook[] current = hooks;
    for (PassHook hook : current) {
      try {
        hook.endOfPass();
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "end-of-pass hook " + hook + " failed", e);
      }
    }
  }

  @Override
  public void prepareToDestroy() {
    delegate.prepareToDestroy();
  }

  @Override
  public void destroy() {
    // A last pass so work queued by the final tasks is not left behind.
    runHooks();
    delegate.destroy();
  }

  @Override
  public IoRegistration register(IoHandle handle) throws Exception {
    return delegate.register(handle);
  }

  @Override
  public void wakeup() {
    delegate.wakeup();
  }

  @Override
  public boolean isCompatible(Class<? extends IoHandle> handleType) {
    return delegate.isCompatible(handleType);
  }

  /** Forwards to the loop's context, and asks the transport to report its active I/O time. */
  private static final class CountingContext implements IoHandlerContext {
    private IoHandlerContext loop;
    long activeNanos;

    void reset(IoHandlerContext loop) {
      this.loop = loop;
      this.activeNanos = 0;
    }

    @Override
    public boolean canBlock() {
      return loop.canBlock();
    }

    @Override
    public long delayNanos(long currentTimeNanos) {
      return loop.delayNanos(currentTimeNanos);
    }

    @Override
    public long deadlineNanos() {
      return loop.deadlineNanos();
    }

    @Override
    public boolean shouldReportActiveIoTime() {
      return true;
    }

    @Override
    public void reportActiveIoTime(long activeNanos) {
      this.activeNanos += activeNanos;
      if (loop.shouldReportActiveIoTime()) {
        loop.reportActiveIoTime(activeNanos);
      }
    }
  }
}
