package io.tidestore.osd.protocol;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.tidestore.osd.metrics.OpLatencies;
import io.tidestore.osd.net.InboundBudget;
import io.tidestore.osd.net.Listeners;
import io.tidestore.osd.ops.ClusterOps;
import io.tidestore.osd.ops.ObjectOps;
import io.tidestore.osd.reactor.Reactor;
import io.tidestore.osd.reactor.Reactors;
import io.tidestore.osd.security.ServerSecurity;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.logging.Logger;

/**
 * The object protocol v1 listeners: a main port whose connections are spread over all reactors, and
 * one port per reactor whose connections stay on that reactor, so a shard-aware client reaches the
 * reactor owning a shard without a hop (docs/protocol.md, "Reaching a reactor"). With main port P
 * (non-zero) reactor r listens on P + 1 + r; with P = 0 every port is ephemeral.
 *
 * <p>Every port is protected alike ({@link ServerSecurity#protect}): TLS as {@code --tls} says, and
 * each connection's ops checked against its client's grants.
 *
 * <p>Thread-safe; {@link #close} closes the listeners (connections end with the reactors).
 */
public final class ObjectProtocolServer implements AutoCloseable, ServerContext {
  private static final Logger LOG = Logger.getLogger(ObjectProtocolServer.class.getName());

  private final Reactors reactors;
  private final ObjectOps ops;
  private final OpLatencies latencies;
  private final InboundBudget frameBudget;
  private final ServerSecurity security;
  private final IdentityHashMap<EventLoop, Integer> reactorOfLoop = new IdentityHashMap<>();
  private final List<Channel> listeners = new ArrayList<>();
  private volatile ShardMap shardMap;
  private volatile ClusterOps clusterOps;
  private InetSocketAddress mainAddress;

  private ObjectProtocolServer(
      Reactors reactors,
      ObjectOps ops,
      OpLatencies latencies,
      InboundBudget frameBudget,
      ServerSecurity security) {
    this.reactors = reactors;
    this.security = security;
    this.frameBudget = frameBudget;
    this.ops = ops;
    this.latencies = latencies;
    for (Reactor reactor : reactors.all()) {
      reactorOfLoop.put(reactor.loop(), reactor.index());
    }
  }

  /**
   * Binds the main port and the per-reactor ports on {@code address}.
   *
   * @param ops the object operations, or null for an OSD without a store (object ops then fail with
   *     EOPNOTSUPP; HELLO, PING and SHARD_MAP still work)
   */
  public static ObjectProtocolServer start(
      Reactors reactors, InetAddress address, int port, ObjectOps ops, ServerLimits limits)
      throws IOException {
    return start(reactors, address, port, ops, limits, OpLatencies.NONE);
  }

  /** As above, recording every object op's latency into {@code latencies}. */
  public static ObjectProtocolServer start(
      Reactors reactors,
      InetAddress address,
      int port,
      ObjectOps ops,
      ServerLimits limits,
      OpLatencies latencies)
      throws IOException {
    return start(
        reactors,
        address,
        port,
        ops,
        limits,
        latencies,
        new InboundBudget(InboundBudget.DEFAULT_BYTES));
  }

  /**
   * As above, reserving the bytes of incomplete large frames from {@code frameBudget}, the budget
   * the daemon shares between its listeners.
   */
  public static ObjectProtocolServer start(
      Reactors reactors,
      InetAddress address,
      int port,
      ObjectOps ops,
      ServerLimits limits,
      OpLatencies latencies,
      InboundBudget frameBudget)
      throws IOException {
    return start(
        reactors, address, port, ops, limits, latencies, frameBudget, ServerSecurity.plaintext());
  }

  /**
   * As above, every port protected by {@code security}: TLS as its mode says (from the first byte,
   * or when the client starts it), and each op checked against the client's grants.
   */
  public static ObjectProtocolServer start(
      Reactors reactors,
      InetAddress address,
      int port,
      ObjectOps ops,
      ServerLimits limits,
      OpLatencies latencies,
      InboundBudget frameBudget,
      ServerSecurity security)
      throws IOException {
    ObjectProtocolServer server =
        new ObjectProtocolServer(reactors, ops, latencies, frameBudget, security);
    try {
      server.bind(address, port, limits);
    } catch (IOException | RuntimeException e) {
      server.close();
      throw e;
    }
    return server;
  }

  private void bind(InetAddress address, int port, ServerLimits limits) throws IOException {
    if (port != 0 && port + reactors.size() > 65535) {
      throw new IOException(
          "port " + port + " leaves no room for " + reactors.size() + " reactor ports");
    }
    mainAddress = bindOne(reactors.group(), new InetSocketAddress(address, port), limits);
    int[] ports = new int[reactors.size()];
    for (Reactor reactor : reactors.all()) {
      int reactorPort = port == 0 ? 0 : port + 1 + reactor.index();
      ports[reactor.index()] =
          bindOne(reactor.loop(), new InetSocketAddress(address, reactorPort), limits).getPort();
    }
    int[] owners = ops == null ? new int[0] : ops.shardOwners();
    for (int s = 0; s < owners.length; s++) {
      // In the classic engine op workers own the shards, not listening loops: every port is as
      // near as another, so the map spreads the shards over them. A no-op for reactors.
      owners[s] %= ports.length;
    }
    shardMap = new ShardMap(FrameDescriptor.PLACEMENT_CRC32C, ports, owners);
    LOG.info(
        "object protocol v"
            + FrameDescriptor.VERSION
            + " on "
            + address.getHostAddress()
            + ":"
            + mainAddress.getPort()
            + ", reactor ports "
            + java.util.Arrays.toString(ports)
            + (ops == null ? ", no object store" : ", " + owners.length + " shards")
            + ", tls "
            + security.mode().flag());
  }

  private InetSocketAddress bindOne(
      EventLoopGroup childGroup, InetSocketAddress address, ServerLimits limits)
      throws IOException {
    ServerBootstrap bootstrap =
        Listeners.tcp(
                reactors,
                childGroup,
                ch -> {
                  ch.pipeline()
                      .addLast(
                          "frames",
                          new FrameDecoder(
                              limits.partialFrameTimeout().toNanos(), true, frameBudget))
                      .addLast("ops", new ObjectProtocolHandler(this, limits, latencies));
                  security.protect(ch, security.mode(), "object protocol");
                })
            .childOption(
                ChannelOption.WRITE_BUFFER_WATER_MARK,
                new WriteBufferWaterMark(1 << 20, 2 * FrameDescriptor.MAX_LENGTH));
    try {
      Channel channel = Listeners.bind(bootstrap, address);
      synchronized (listeners) {
        listeners.add(channel);
      }
      return (InetSocketAddress) channel.localAddress();
    } catch (RuntimeException e) {
      throw new IOException("cannot listen on " + address + ": " + e.getMessage(), e);
    }
  }

  /** The main listening address. */
  public InetSocketAddress address() {
    return mainAddress;
  }

  @Override
  public ShardMap shardMap() {
    return shardMap;
  }

  @Override
  public ObjectOps ops() {
    return ops;
  }

  @Override
  public ClusterOps clusterOps() {
    return clusterOps;
  }

  /**
   * Starts serving protocol v2 with {@code ops}: a cluster OSD calls it once registered, since its
   * map (and so what it serves) comes only then.
   */
  public void serveCluster(ClusterOps ops) {
    this.clusterOps = ops;
  }

  @Override
  public int reactorOf(EventLoop loop) {
    return reactorOfLoop.getOrDefault(loop, FrameDescriptor.ANY_REACTOR);
  }

  @Override
  public int reactorCount() {
    return reactors.size();
  }

  @Override
  public ServerSecurity security() {
    return security;
  }

  @Override
  public void close() {
    synchronized (listeners) {
      for (Channel listener : listeners) {
        listener.close().syncUninterruptibly();
      }
      listeners.clear();
    }
  }
}
