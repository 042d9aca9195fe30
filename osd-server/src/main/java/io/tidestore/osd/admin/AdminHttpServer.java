package io.tidestore.osd.admin;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.tidestore.osd.admin.AdminPage.Need;
import io.tidestore.osd.admin.AdminPage.Response;
import io.tidestore.osd.security.ServerSecurity;
import io.tidestore.osd.security.TlsMode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The daemon's HTTP endpoint: {@code GET /metrics} is Prometheus text, {@code GET
 * /dump_metrics?prefix=P} the same metrics as JSON, {@code GET /status} a JSON summary, {@code POST
 * /admin/cache-policy?policy=lru|2q} switches the extent caches' policy, and the daemon adds more
 * {@code POST} pages ({@link #post}: {@code /scrub}). It runs on one event loop thread of its own,
 * never on a reactor: a scrape may wait for the reactors' statistics.
 *
 * <p>Netty's HTTP codec rather than the JDK's HttpServer because it sits behind the same TLS
 * handling as the other listeners ({@link ServerSecurity#protect}): HTTPS with client certificates,
 * failed handshakes counted and logged in one line, the client's identity for its grants. With an
 * auth file, {@code /metrics} and {@code /status} need {@code r} on the pool, the others {@code *}.
 */
public final class AdminHttpServer implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(AdminHttpServer.class.getName());
  private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
  private static final String JSON = "application/json; charset=utf-8";

  /** Connections idle this long are closed (a scraper reconnects; an idle socket costs a slot). */
  private static final long IDLE_SECONDS = 120;

  /** Request bodies are empty today; anything larger than this is refused (413). */
  private static final int MAX_REQUEST_BYTES = 64 * 1024;

  private final MultiThreadIoEventLoopGroup loop;
  private final Channel listener;
  private final Map<String, AdminPage> pages; // read by the HTTP thread, added to by post()

  private AdminHttpServer(
      MultiThreadIoEventLoopGroup loop, Channel listener, Map<String, AdminPage> pages) {
    this.loop = loop;
    this.listener = listener;
    this.pages = pages;
  }

  /** A runtime switch of the cache policy; returns the JSON answer. */
  @FunctionalInterface
  public interface CachePolicySwitch {
    /**
     * @throws IllegalArgumentException for an unknown policy (HTTP 400)
     * @throws IllegalStateException when there is nothing to switch (HTTP 409)
     */
    String switchTo(String policy) throws Exception;
  }

  /** Binds {@code address} in plaintext, every client allowed everything, and starts serving. */
  public static AdminHttpServer start(
      InetSocketAddress address,
      Supplier<String> metrics,
      UnaryOperator<String> dumpMetricsJson,
      Supplier<String> statusJson,
      CachePolicySwitch cachePolicy)
      throws IOException {
    return start(
        address,
        ServerSecurity.plaintext(),
        TlsMode.OFF,
        metrics,
        dumpMetricsJson,
        statusJson,
        cachePolicy);
  }

  /**
   * Binds {@code address} with TLS as {@code tls} says and the grants of {@code security}, and
   * starts serving.
   */
  public static AdminHttpServer start(
      InetSocketAddress address,
      ServerSecurity security,
      TlsMode tls,
      Supplier<String> metrics,
      UnaryOperator<String> dumpMetricsJson,
      Supplier<String> statusJson,
      CachePolicySwitch cachePolicy)
      throws IOException {
    Map<String, AdminPage> pages = pages(metrics, dumpMetricsJson, statusJson, cachePolicy);
    MultiThreadIoEventLoopGroup loop =
        new MultiThreadIoEventLoopGroup(
            1,
            (ThreadFactory) r -> new FastThreadLocalThread(r, "tidestore-admin-http"),
            NioIoHandler.newFactory());
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(loop)
            .channel(NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    initConnection(ch, pages, security, tls);
                  }
                });
    try {
      Channel listener = bootstrap.bind(address).sync().channel();
      return new AdminHttpServer(loop, listener, pages);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      loop.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      throw new IOException("interrupted while binding " + address, e);
    } catch (RuntimeException e) {
      loop.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      throw new IOException("cannot listen on " + address + ": " + e.getMessage(), e);
    }
  }

  /** The pages every admin listener serves; {@link #post} adds the daemon's own. */
  static Map<String, AdminPage> pages(
      Supplier<String> metrics,
      UnaryOperator<String> dumpMetricsJson,
      Supplier<String> statusJson,
      CachePolicySwitch cachePolicy) {
    Map<String, AdminPage> pages = new ConcurrentSkipListMap<>();
    pages.put(
        "/metrics", AdminPage.get(Need.READ, q -> Response.ok(PROMETHEUS_TEXT, metrics.get())));
    pages.put("/status", AdminPage.get(Need.READ, q -> Response.ok(JSON, statusJson.get())));
    pages.put(
        "/dump_metrics",
        AdminPage.get(
            Need.ADMIN, q -> Response.ok(JSON, dumpMetricsJson.apply(q.parameter("prefix")))));
    pages.put(
        "/admin/cache-policy",
        new AdminPage(
            Set.of(HttpMethod.POST),
            Need.ADMIN,
            q -> switchPolicy(cachePolicy, q.parameter("policy"))));
    return pages;
  }

  /** The handlers of one admin connection, TLS first when {@code tls} wants it. */
  static void initConnection(
      Channel ch, Map<String, AdminPage> pages, ServerSecurity security, TlsMode tls) {
    ch.pipeline()
        .addLast("idle", new IdleStateHandler(0, 0, IDLE_SECONDS, TimeUnit.SECONDS))
        .addLast("http", new HttpServerCodec())
        .addLast("aggregate", new HttpObjectAggregator(MAX_REQUEST_BYTES))
        .addLast("pages", new AdminHandler(pages, security));
    security.protect(ch, tls, "admin http");
  }

  private static Response switchPolicy(CachePolicySwitch cachePolicy, String policy) {
    try {
      String body = cachePolicy.switchTo(policy);
      LOG.info("extent cache policy switched: " + body);
      return Response.ok(JSON, body);
    } catch (IllegalArgumentException e) {
      return Response.error(400, e.getMessage());
    } catch (IllegalStateException e) {
      return Response.error(409, e.getMessage());
    } catch (Exception e) {
      LOG.log(Level.WARNING, "cache policy switch failed", e);
      return Response.error(500, e.toString());
    }
  }

  /**
   * Adds {@code POST path}, for clients with the {@code *} cap: runs {@code action} and answers its
   * JSON (200), or 500 with the error. Other methods get 405.
   */
  public void post(String path, Supplier<String> action) {
    pages.put(path, postPage(path, action));
  }

  /** {@code POST path} running {@code action} (see {@link #post}). */
  static AdminPage postPage(String path, Supplier<String> action) {
    return new AdminPage(
        Set.of(HttpMethod.POST),
        Need.ADMIN,
        q -> {
          try {
            return Response.ok(JSON, action.get());
          } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "admin " + path + " failed", e);
            return Response.error(500, e.toString());
          }
        });
  }

  /** The bound address (the real port when 0 was asked for). */
  public InetSocketAddress address() {
    return (InetSocketAddress) listener.localAddress();
  }

  @Override
  public void close() {
    listener.close().syncUninterruptibly();
    loop.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
