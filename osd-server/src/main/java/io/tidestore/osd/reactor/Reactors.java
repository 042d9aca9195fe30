package io.tidestore.osd.reactor;

import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.tidestore.osd.cpu.CpuAllocator;
import io.tidestore.osd.cpu.ThreadPinner;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The daemon's reactors: a Netty {@link MultiThreadIoEventLoopGroup} whose loop {@code i} runs on a
 * thread named {@code reactor-i} pinned to {@code cpus[i]} before it runs anything, over a {@link
 * ReactorIoHandler} that adds pass hooks and utilization. {@link #start} returns once every thread
 * runs and is pinned. Thread-safe; {@link #close} waits for the loops to stop.
 */
public final class Reactors implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(Reactors.class.getName());

  /** The thread-name prefix of the reactor engine's loops. */
  public static final String REACTOR_THREADS = "reactor";

  private final Group group;
  private final Transport transport;
  private final IdlePoll idlePoll;
  private final List<Reactor> reactors;

  private Reactors(Group group, Transport transport, IdlePoll idlePoll, List<Reactor> reactors) {
    this.group = group;
    this.transport = transport;
    this.idlePoll = idlePoll;
    this.reactors = List.copyOf(reactors);
  }

  /**
   * Starts {@code cpus.length} reactors on {@code transport}; {@code cpus[i]} is reactor i's CPU or
   * {@link CpuAllocator#UNPINNED}. Without a pinner every reactor runs unpinned.
   */
  public static Reactors start(Transport transport, int[] cpus, Optional<ThreadPinner> pinner)
      throws IOException {
    return start(REACTOR_THREADS, transport, cpus, pinner, IdlePoll.NONE);
  }

  /** Like {@link #start(Transport, int[], Optional)}, polling {@code idlePoll} before blocking. */
  public static Reactors start(
      Transport transport, int[] cpus, Optional<ThreadPinner> pinner, IdlePoll idlePoll)
      throws IOException {
    return start(REACTOR_THREADS, transport, cpus, pinner, idlePoll);
  }

  /**
   * Like {@link #start(Transport, int[], Optional)}, with threads named {@code threadPrefix-i}: the
   * classic engine runs its messenger, op and I/O threads as loops of this kind, and the per-thread
   * CPU charts tell the roles apart by these names.
   */
  public static Reactors start(
      String threadPrefix, Transport transport, int[] cpus, Optional<ThreadPinner> pinner)
      throws IOException {
    return start(threadPrefix, transport, cpus, pinner, IdlePoll.NONE);
  }

  private static Reactors start(
      String threadPrefix,
      Transport transport,
      int[] cpus,
      Optional<ThreadPinner> pinner,
      IdlePoll idlePoll)
      throws IOException {
    Throwable cause = transport.unavailabilityCause();
    if (cause != null) {
      throw new IOException("transport " + transport.label() + " is not available here: " + cause);
    }
    Setup setup = new Setup(threadPrefix, cpus, pinner, transport.handlerFactory(), idlePoll);
    Group group = new Group(setup);
    Reactors started = new Reactors(group, transport, idlePoll, setup.reactors);
    try {
      // Run one task on each loop so every thread exists and is pinned before we report.
      for (Reactor reactor : started.reactors) {
        reactor.loop().submit(() -> {}).syncUninterruptibly();
      }
    } catch (RuntimeException e) {
      started.close();
      throw e;
    }
    LOG.info(started.describe());
    return started;
  }

  /** One line: transport and reactor -> CPU (tid). */
  public String describe() {
    String prefix = reactors.isEmpty() ? REACTOR_THREADS : reactors.get(0).threadPrefix();
    StringBuilder line =
        new StringBuilder()
            .append(reactors.size())
            .append(prefix.equals(REACTOR_THREADS) ? " reactor(s)" : " " + prefix + " thread(s)")
            .append(" on ")
            .append(transport.label())
            .append(
                idlePoll.nanos() == 0
                    ? ""
                    : ", idle poll " + idlePoll.describe() + (idlePoll.always() ? "" : " us"))
            .append(':');
    for (Reactor reactor : reactors) {
      line.append(' ').append(reactor.name()).append(" -> ");
      line.append(
          reactor.pinnedCpu() == CpuAllocator.UNPINNED ? "unpinned" : "CPU " + reactor.pinnedCpu());
      if (reactor.threadId() > 0) {
        line.append(" (tid ").append(reactor.threadId()).append(')');
      }
      line.append(';');
    }
    line.setLength(line.length() - 1);
    return line.toString();
  }

  public List<Reactor> all() {
    return reactors;
  }

  public Reactor get(int index) {
    return reactors.get(index);
  }

  public int size() {
    return reactors.size();
  }

  public Transport transport() {
    return transport;
  }

  /** The Netty group, for bootstraps. */
  public MultiThreadIoEventLoopGroup group() {
    return group;
  }

  @Override
  public void close() {
    group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** Passed through the group constructor's args because newChild runs before our fields exist. */
  private static final class Setup {
    final String threadPrefix;
    final int[] cpus;
    final Optional<ThreadPinner> pinner;
    final IoHandlerFactory transportFactory;
    final IdlePoll idlePoll;
    final List<Reactor> reactors = new ArrayList<>();

    Setup(
        String threadPrefix,
        int[] cpus,
        Optional<ThreadPinner> pinner,
        IoHandlerFactory transportFactory,
        IdlePoll idlePoll) {
      this.threadPrefix = threadPrefix;
      this.cpus = cpus.clone();
      this.pinner = pinner;
      this.transportFactory = transportFactory;
      this.idlePoll = idlePoll;
    }
  }

  private static final class Group extends MultiThreadIoEventLoopGroup {
    Group(Setup setup) {
      super(setup.cpus.length, (Executor) null, setup.transportFactory, setup);
    }

    @Override
    protected IoEventLoop newChild(
        Executor ignored, IoHandlerFactory transportFactory, Object... args) {
      Setup setup = (Setup) args[0];
      int index = setup.reactors.size();
      ReactorStats stats = new ReactorStats();
      ReactorIoHandler[] handler = new ReactorIoHandler[1];
      IoHandlerFactory wrapping =
          executor ->
              handler[0] =
                  new ReactorIoHandler(
                      transportFactory.newHandler(executor), stats, setup.idlePoll);
      Reactor[] self = new Reactor[1];
      Executor thread = command -> startThread(index, setup, self[0], command);
      IoEventLoop loop = super.newChild(thread, wrapping);
      self[0] = new Reactor(setup.threadPrefix, index, setup.cpus[index], loop, handler[0], stats);
      setup.reactors.add(self[0]);
      return loop;
    }

    private static void startThread(int index, Setup setup, Reactor reactor, Runnable loopBody) {
      Runnable pinnedBody =
          () -> {
            pin(index, setup, reactor);
            loopBody.run();
          };
      new FastThreadLocalThread(null, pinnedBody, reactor.name()).start();
    }

    private static void pin(int index, Setup setup, Reactor reactor) {
      int cpu = setup.cpus[index];
      if (setup.pinner.isEmpty()) {
        reactor.started(CpuAllocator.UNPINNED, -1);
        return;
      }
      ThreadPinner pinner = setup.pinner.get();
      int tid = pinner.currentThreadId();
      if (cpu == CpuAllocator.UNPINNED) {
        reactor.started(CpuAllocator.UNPINNED, tid);
        return;
      }
      try {
        pinner.pinCurrentThread(cpu);
        reactor.started(cpu, tid);
      } catch (IOException | RuntimeException e) {
        LOG.log(Level.WARNING, reactor.name() + ": cannot pin to CPU " + cpu + ", unpinned", e);
        reactor.started(CpuAllocator.UNPINNED, tid);
      }
    }
  }
}
