package io.tidestore.osd.reactor;

import io.netty.channel.IoEventLoop;
import io.netty.util.concurrent.Future;
import io.tidestore.osd.cpu.CpuAllocator;

/**
 * One reactor: a Netty event loop on its own (usually pinned) thread named {@code reactor-N} (or,
 * in the classic engine, after its role: {@code msgr-N}, {@code osd-op-N}, {@code io-N}). The
 * accessors are safe from any thread; {@link #addPassHook}/{@link #removePassHook} hop onto the
 * reactor thread when called from elsewhere.
 */
public final class Reactor {
  private final String threadPrefix;
  private final int index;
  private final int plannedCpu;
  private final IoEventLoop loop;
  private final ReactorIoHandler handler;
  private final ReactorStats stats;
  private volatile int pinnedCpu = CpuAllocator.UNPINNED;
  private volatile int threadId = -1;

  Reactor(
      String threadPrefix,
      int index,
      int plannedCpu,
      IoEventLoop loop,
      ReactorIoHandler handler,
      ReactorStats stats) {
    this.threadPrefix = threadPrefix;
    this.index = index;
    this.plannedCpu = plannedCpu;
    this.loop = loop;
    this.handler = handler;
    this.stats = stats;
  }

  public int index() {
    return index;
  }

  /** The thread's name: {@code reactor-N}, or the classic engine's {@code msgr-N}, ... */
  public String name() {
    return threadPrefix + "-" + index;
  }

  /** The role part of the thread's name ({@code reactor}, {@code msgr}, {@code osd-op}, ...). */
  public String threadPrefix() {
    return threadPrefix;
  }

  /** The CPU the policy chose, or {@link CpuAllocator#UNPINNED}. */
  public int plannedCpu() {
    return plannedCpu;
  }

  /** The CPU the thread is actually bound to, or {@link CpuAllocator#UNPINNED}. */
  public int pinnedCpu() {
    return pinnedCpu;
  }

  /** The kernel thread id of the reactor thread, -1 before it started or without native access. */
  public int threadId() {
    return threadId;
  }

  public IoEventLoop loop() {
    return loop;
  }

  public ReactorStats stats() {
    return stats;
  }

  void started(int cpu, int tid) {
    this.pinnedCpu = cpu;
    this.threadId = tid;
  }

  /** Registers a hook run at the end of every pass of this reactor; completes once registered. */
  public Future<?> addPassHook(PassHook hook) {
    return loop.submit(() -> handler.addHook(hook));
  }

  /** Unregisters a hook; the future's value says whether it was registered. */
  public Future<Boolean> removePassHook(PassHook hook) {
    return loop.submit(() -> handler.removeHook(hook));
  }
}
