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
 * handlers do when asked); everything else on the thread is busy, except the passes of idle polling
 * ({@link IdlePoll}) that found nothing to do: those are idle too, as in Seastar.
 *
 * <p>Idle polling works through the context: while the window since the last work is open, {@link
 * IoHandlerContext#canBlock} answers false, so the transport checks for events without blocking
 * (epoll_wait with a zero timeout, io_uring submit without wait) and the loop comes straight back.
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
  private final long pollNanos;
  private long lastReturnNanos;
  private long lastWorkNanos;
  private boolean lastPassFoundNothing;

  ReactorIoHandler(IoHandler delegate, ReactorStats stats, IdlePoll idlePoll) {
    this.delegate = delegate;
    this.stats = stats;
    this.pollNanos = idlePoll.nanos();
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
    lastWorkNanos = lastReturnNanos;
    delegate.initialize();
  }

  @Override
  public int run(IoHandlerContext context) {
    runHooks();
    long enter = System.nanoTime();
    // The time since the last run() held the previous pass's tasks and the hooks: busy, unless
    // that pass was a poll that found nothing (then the hooks found nothing either). Recorded
    // before the delegate may block, so a second of tasks shows before the reactor wakes again.
    long before = enter - lastReturnNanos;
    stats.record(lastPassFoundNothing ? 0 : before, lastPassFoundNothing ? before : 0, enter);
    boolean polling = pollNanos != 0 && enter - lastWorkNanos < pollNanos;
    counting.reset(context, polling);
    if (!polling) {
      stats.waiting(enter);
    }
    int handled = delegate.run(counting);
    long exit = System.nanoTime();
    long inRun = exit - enter;
    boolean work = handled > 0 || !context.canBlock();
    boolean foundNothing = polling && !work;
    long active = foundNothing ? 0 : Math.min(counting.activeNanos, inRun);
    stats.record(active, inRun - active, exit);
    stats.passEnded();
    if (work) {
      lastWorkNanos = exit;
    }
    lastPassFoundNothing = foundNothing;
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
    private boolean polling;
    long activeNanos;

    void reset(IoHandlerContext loop, boolean polling) {
      this.loop = loop;
      this.polling = polling;
      this.activeNanos = 0;
    }

    @Override
    public boolean canBlock() {
      return !polling && loop.canBlock();
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
