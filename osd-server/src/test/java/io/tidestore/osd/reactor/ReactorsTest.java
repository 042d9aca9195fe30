package io.tidestore.osd.reactor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.tidestore.osd.cpu.Affinity;
import io.tidestore.osd.cpu.CpuAllocator;
import io.tidestore.osd.cpu.CpuList;
import io.tidestore.osd.cpu.CpuPolicy;
import io.tidestore.osd.cpu.SysfsTopology;
import io.tidestore.osd.cpu.ThreadPinner;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Real reactors on real transports: pinning, pass hooks, utilization. */
class ReactorsTest {
  private static Reactors start(Transport transport, CpuPolicy policy, int count) throws Exception {
    assumeTrue(
        transport.unavailabilityCause() == null,
        () -> transport.label() + " unavailable: " + transport.unavailabilityCause());
    Optional<ThreadPinner> pinner = Affinity.pinner();
    var topology = SysfsTopology.read(Affinity.processCpus(pinner));
    return Reactors.start(transport, CpuAllocator.assign(topology, policy, count), pinner);
  }

  private static long[] counts(AtomicLong hookCalls, Reactor reactor) {
    return new long[] {hookCalls.get(), reactor.stats().passesAcquire()};
  }

  /** Waits until the loop recorded at least {@code n} more passes, nudging it with tasks. */
  private static void completePasses(Reactor reactor, int n) throws Exception {
    long target = reactor.stats().passesAcquire() + n;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (reactor.stats().passesAcquire() < target) {
      assertTrue(System.nanoTime() < deadline, "reactor made no progress");
      reactor.loop().submit(() -> {}).get();
    }
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void threadsAreNamedAndPinnedAsPlanned(Transport transport) throws Exception {
    try (Reactors reactors = start(transport, CpuPolicy.BALANCED, 2)) {
      assertEquals(2, reactors.size());
      for (Reactor reactor : reactors.all()) {
        String name = reactor.loop().submit(() -> Thread.currentThread().getName()).get();
        assertEquals("reactor-" + reactor.index(), name);
        assertEquals(reactor.plannedCpu(), reactor.pinnedCpu());
        String proc =
            CpuList.format(
                Affinity.allowedListFromStatus(
                    Path.of("/proc/self/task/" + reactor.threadId() + "/status")));
        assertEquals(Integer.toString(reactor.pinnedCpu()), proc);
      }
      String line = reactors.describe();
      assertTrue(line.contains("reactor-0 -> CPU " + reactors.get(0).pinnedCpu()), line);
      assertTrue(line.contains(transport.label()), line);
    }
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void noneLeavesThreadsOnEveryAllowedCpu(Transport transport) throws Exception {
    try (Reactors reactors = start(transport, CpuPolicy.NONE, 1)) {
      Reactor reactor = reactors.get(0);
      assertEquals(CpuAllocator.UNPINNED, reactor.pinnedCpu());
      assertEquals(
          Affinity.allowedListFromStatus(Path.of("/proc/self/status")),
          Affinity.allowedListFromStatus(
              Path.of("/proc/self/task/" + reactor.threadId() + "/status")));
    }
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void hookRunsOncePerPassAfterThatPassesTasks(Transport transport) throws Exception {
    try (Reactors reactors = start(transport, CpuPolicy.NONE, 1)) {
      Reactor reactor = reactors.get(0);
      AtomicLong hookCalls = new AtomicLong();
      long[] queued = new long[1]; // reactor-thread confined
      CountDownLatch flushed = new CountDownLatch(1);
      PassHook hook =
          () -> {
            hookCalls.incrementAndGet();
            if (queued[0] > 0) {
              queued[0] = 0;
              flushed.countDown();
            }
          };
      reactor.addPassHook(hook).sync();
      // Between two tasks, as many hook calls as recorded passes: exactly once per pass.
      long[] before = reactor.loop().submit(() -> counts(hookCalls, reactor)).get();
      completePasses(reactor, 5);
      long[] after = reactor.loop().submit(() -> counts(hookCalls, reactor)).get();
      assertTrue(after[1] - before[1] >= 5);
      assertEquals(after[1] - before[1], after[0] - before[0]);
      // Work queued by a task is seen by the hook of that same pass, without any wakeup of ours.
      reactor.loop().execute(() -> queued[0]++);
      assertTrue(flushed.await(10, TimeUnit.SECONDS), "hook never saw the task's work");
      assertTrue(reactor.removePassHook(hook).get());
      long removedAt = reactor.loop().submit(hookCalls::get).get();
      completePasses(reactor, 3);
      assertEquals(removedAt, hookCalls.get(), "a removed hook still ran");
    }
  }

  /**
   * A read handler queues its replies; only the pass hook writes them, as a journal batch would.
   */
  @ParameterizedTest
  @EnumSource(Transport.class)
  void hookFlushesWhatSocketReadsQueued(Transport transport) throws Exception {
    try (Reactors reactors = start(transport, CpuPolicy.NONE, 1)) {
      Reactor reactor = reactors.get(0);
      List<Channel> dirty = new ArrayList<>(); // reactor-thread confined
      List<ByteBuf> pending = new ArrayList<>();
      AtomicLong batches = new AtomicLong();
      reactor
          .addPassHook(
              () -> {
                if (pending.isEmpty()) {
                  return;
                }
                batches.incrementAndGet();
                for (int i = 0; i < pending.size(); i++) {
                  var _ = dirty.get(i).writeAndFlush(pending.get(i));
                }
                pending.clear();
                dirty.clear();
              })
          .sync();
      Channel server =
          new ServerBootstrap()
              .group(reactors.group())
              .channel(transport.serverChannel())
              .childHandler(
                  new SimpleChannelInboundHandler<ByteBuf>() {
                    @Override
                    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
                      dirty.add(ctx.channel());
                      pending.add(msg.retain());
                    }
                  })
              .bind(new InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0))
              .sync()
              .channel();
      BlockingQueue<String> received = new ArrayBlockingQueue<>(16);
      Channel client =
          new Bootstrap()
              .group(reactors.group())
              .channel(transport.socketChannel())
              .handler(
                  new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                      ch.pipeline()
                          .addLast(
                              new SimpleChannelInboundHandler<ByteBuf>() {
                                @Override
                                protected void channelRead0(
                                    ChannelHandlerContext ctx, ByteBuf msg) {
                                  received.add(msg.toString(StandardCharsets.US_ASCII));
                                }
                              });
                    }
                  })
              .connect(server.localAddress())
              .sync()
              .channel();
      client.writeAndFlush(Unpooled.copiedBuffer("hello", StandardCharsets.US_ASCII)).sync();
      StringBuilder echoed = new StringBuilder();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (echoed.length() < 5 && System.nanoTime() < deadline) {
        String part = received.poll(100, TimeUnit.MILLISECONDS);
        if (part != null) {
          echoed.append(part);
        }
      }
      assertEquals("hello", echoed.toString());
      assertTrue(batches.get() >= 1);
      client.close().sync();
      server.close().sync();
    }
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void utilizationSeparatesBusyFromIdle(Transport transport) throws Exception {
    try (Reactors reactors = start(transport, CpuPolicy.NONE, 1)) {
      Reactor reactor = reactors.get(0);
      ReactorStats stats = reactor.stats();
      // Idle: the loop blocks until a scheduled task is due 100 ms from now.
      long idleBefore = stats.idleNanosAcquire();
      reactor.loop().schedule(() -> {}, 100, TimeUnit.MILLISECONDS).get();
      completePasses(reactor, 2);
      long idle = stats.idleNanosAcquire() - idleBefore;
      assertTrue(idle >= TimeUnit.MILLISECONDS.toNanos(50), "idle " + idle);
      // Busy: a task computes for 50 ms of wall time.
      long busyBefore = stats.busyNanosAcquire();
      reactor
          .loop()
          .submit(
              () -> {
                long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
                long spins = 0;
                while (System.nanoTime() < end) {
                  spins++;
                }
                return spins;
              })
          .get();
      completePasses(reactor, 2);
      long busy = stats.busyNanosAcquire() - busyBefore;
      assertTrue(busy >= TimeUnit.MILLISECONDS.toNanos(50), "busy " + busy);
    }
  }
}
