package io.tidestore.osd.nbd;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.tidestore.osd.image.ImageExports;
import io.tidestore.osd.metrics.OpLatencies;
import io.tidestore.osd.net.InboundBudget;
import io.tidestore.osd.net.Listeners;
import io.tidestore.osd.reactor.Reactors;
import io.tidestore.osd.security.ServerSecurity;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.logging.Logger;

/**
 * The NBD listener: every connection runs the fixed newstyle handshake, then serves one image on
 * the reactor it landed on. Thread-safe; {@link #close} closes the listener.
 */
public final class NbdServer implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(NbdServer.class.getName());

  /** NBD's IANA port. */
  public static final int DEFAULT_PORT = 10809;

  /** The pool the standalone daemon's images live in, as auth-file grants name it. */
  public static final String POOL = "rbd";

  /**
   * Per-connection limits.
   *
   * @param maxInFlight commands in flight before the server stops reading the connection
   * @param handshakeTimeout how long a new connection may take from its greeting to the option that
   *     starts transmission before it is closed (so connections that never negotiate do not pile
   *     up)
   */
  public record Limits(int maxInFlight, Duration handshakeTimeout) {
    /** The default handshake timeout: 10 s, as the object protocol allows for HELLO. */
    public static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);

    public static final Limits DEFAULT = new Limits(128);

    public Limits {
      if (maxInFlight < 1) {
        throw new IllegalArgumentException("maxInFlight must be positive");
      }
      if (handshakeTimeout.isNegative() || handshakeTimeout.isZero()) {
        throw new IllegalArgumentException("handshakeTimeout must be positive");
      }
    }

    /** {@code maxInFlight} with the default {@link #HANDSHAKE_TIMEOUT}. */
    public Limits(int maxInFlight) {
      this(maxInFlight, HANDSHAKE_TIMEOUT);
    }
  }

  /** Names of the commands whose latency is measured, indexed by command type (else null). */
  public static String[] commandNames() {
    String[] names = new String[Nbd.CMD_BLOCK_STATUS + 1];
    names[Nbd.CMD_READ] = "read";
    names[Nbd.CMD_WRITE] = "write";
    names[Nbd.CMD_FLUSH] = "flush";
    names[Nbd.CMD_TRIM] = "trim";
    names[Nbd.CMD_CACHE] = "cache";
    names[Nbd.CMD_WRITE_ZEROES] = "write_zeroes";
    names[Nbd.CMD_BLOCK_STATUS] = "block_status";
    return names;
  }

  private final Channel listener;

  private NbdServer(Channel listener) {
    this.listener = listener;
  }

  /** Binds {@code address:port} (0 = any free port) and serves {@code exports}. */
  public static NbdServer start(
      Reactors reactors, InetAddress address, int port, ImageExports exports, Limits limits)
      throws IOException {
    return start(reactors, address, port, exports, limits, OpLatencies.NONE);
  }

  /**
   * Largest single read from a client's socket. At 64 KiB x 16 fio keeps 1 MiB of writes in flight;
   * reads capped at 64 KiB took sixteen recvfrom calls to bring that in, each taking the socket
   * lock that the client's sends contend for (a contended lock spins in the hypervisor on this VM).
   * The A/B against Netty's default (reads of at most 64 KiB) is to be re-run in a quiet window
   * (docs/benchmarks.md "NBD socket reads"; its earlier figures came from a busy machine). A
   * write's payload slice keeps its read buffer alive until the shard has copied it, so this also
   * bounds what one payload can pin.
   */
  static final int MAX_READ_BYTES = 256 << 10;

  /** As above, recording every command's latency into {@code latencies}. */
  public static NbdServer start(
      Reactors reactors,
      InetAddress address,
      int port,
      ImageExports exports,
      Limits limits,
      OpLatencies latencies)
      throws IOException {
    return start(
        reactors,
        address,
        port,
        exports,
        limits,
        latencies,
        new InboundBudget(InboundBudget.DEFAULT_BYTES),
        ServerSecurity.plaintext());
  }

  /**
   * As above, reserving the bytes of incomplete large write payloads from {@code frameBudget}, the
   * budget the daemon shares between its listeners, and with the daemon's TLS mode and grants:
   * STARTTLS as {@code security} allows, and each client sees the images of {@link #POOL} its
   * certificate's caps let it.
   */
  public static NbdServer start(
      Reactors reactors,
      InetAddress address,
      int port,
      ImageExports exports,
      Limits limits,
      OpLatencies latencies,
      InboundBudget frameBudget,
      ServerSecurity security)
      throws IOException {
    ServerBootstrap bootstrap =
        Listeners.tcp(
                reactors,
                reactors.group(),
                ch ->
                    ch.pipeline()
                        .addLast(
                            "nbd-handshake",
                            new NbdHandshakeHandler(
                                exports, limits, latencies, frameBudget, security, POOL)))
            .childOption(
                ChannelOption.RCVBUF_ALLOCATOR,
                new AdaptiveRecvByteBufAllocator(64, 2048, MAX_READ_BYTES).maxMessagesPerRead(16));
    Channel listener = Listeners.bind(bootstrap, new InetSocketAddress(address, port));
    LOG.info(
        "NBD on "
            + address.getHostAddress()
            + ":"
            + ((InetSocketAddress) listener.localAddress()).getPort());
    return new NbdServer(listener);
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) listener.localAddress();
  }

  @Override
  public void close() {
    listener.close().syncUninterruptibly();
  }
}
