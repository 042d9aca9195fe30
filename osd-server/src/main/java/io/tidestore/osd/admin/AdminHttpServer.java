package io.tidestore.osd.admin;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The daemon's HTTP endpoint (the JDK's HttpServer: no dependency needed for two pages): {@code GET
 * /metrics} is Prometheus text, {@code GET /dump_metrics?prefix=P} the same metrics as JSON, {@code
 * GET /status} a JSON summary, {@code POST /scrub} starts a scrub pass ({@link #post}). It runs on
 * one thread of its own, never on a reactor.
 */
public final class AdminHttpServer implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(AdminHttpServer.class.getName());
  private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  private final HttpServer server;
  private final ExecutorService executor;

  private AdminHttpServer(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
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

  /** Binds and starts serving. */
  public static AdminHttpServer start(
      InetSocketAddress address,
      Supplier<String> metrics,
      UnaryOperator<String> dumpMetricsJson,
      Supplier<String> statusJson,
      CachePolicySwitch cachePolicy)
      throws IOException {
    HttpServer server = HttpServer.create(address, 16);
    ExecutorService executor =
        Executors.newSingleThreadExecutor(r -> new Thread(r, "tidestore-admin-http"));
    server.setExecutor(executor);
    server.createContext("/metrics", exchange -> respond(exchange, PROMETHEUS_TEXT, metrics));
    server.createContext(
        "/status", exchange -> respond(exchange, "application/json; charset=utf-8", statusJson));
    server.createContext(
        "/dump_metrics",
        exchange ->
            respond(
                exchange,
                "application/json; charset=utf-8",
                () -> dumpMetricsJson.apply(prefix(exchange.getRequestURI().getRawQuery()))));
    server.createContext("/admin/cache-policy", exchange -> switchPolicy(exchange, cachePolicy));
    server.start();
    return new AdminHttpServer(server, executor);
  }

  private static void respond(HttpExchange exchange, String contentType, Supplier<String> body)
      throws IOException {
    try (exchange) {
      if (!"GET".equals(exchange.getRequestMethod())
          && !"HEAD".equals(exchange.getRequestMethod())) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      byte[] bytes;
      try {
        bytes = body.get().getBytes(StandardCharsets.UTF_8);
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "admin page " + exchange.getRequestURI() + " failed", e);
        exchange.sendResponseHeaders(500, -1);
        return;
      }
      exchange.getResponseHeaders().set("Content-Type", contentType);
      boolean head = "HEAD".equals(exchange.getRequestMethod());
      exchange.sendResponseHeaders(200, head ? -1 : bytes.length);
      if (!head) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(bytes);
        }
      }
    }
  }

  private static void switchPolicy(HttpExchange exchange, CachePolicySwitch cachePolicy)
      throws IOException {
    try (exchange) {
      if (!isPost(exchange)) {
        return;
      }
      String query = exchange.getRequestURI().getQuery();
      String policy = query != null && query.startsWith("policy=") ? query.substring(7) : "";
      int code;
      String body;
      try {
        body = cachePolicy.switchTo(policy);
        code = 200;
        LOG.info("extent cache policy switched: " + body);
      } catch (IllegalArgumentException e) {
        code = 400;
        body = error(e.getMessage());
      } catch (IllegalStateException e) {
        code = 409;
        body = error(e.getMessage());
      } catch (Exception e) {
        LOG.log(Level.WARNING, "cache policy switch failed", e);
        code = 500;
        body = error(e.toString());
      }
      sendJson(exchange, code, body);
    }
  }

  /** Whether the request is a POST; answers anything else 405. */
  private static boolean isPost(HttpExchange exchange) throws IOException {
    if ("POST".equals(exchange.getRequestMethod())) {
      return true;
    }
    exchange.getResponseHeaders().set("Allow", "POST");
    exchange.sendResponseHeaders(405, -1);
    return false;
  }

  private static void sendJson(HttpExchange exchange, int code, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
    exchange.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  /**
   * Adds {@code POST path}: runs {@code action} and answers its JSON (200), or 500 with the error.
   * Other methods get 405.
   */
  public void post(String path, Supplier<String> action) {
    server.createContext(
        path,
        exchange -> {
          try (exchange) {
            if (!isPost(exchange)) {
              return;
            }
            int code = 200;
            String body;
            try {
              body = action.get();
            } catch (RuntimeException e) {
              LOG.log(Level.WARNING, "admin " + path + " failed", e);
              code = 500;
              body = error(e.toString());
            }
            sendJson(exchange, code, body);
          }
        });
  }

  /** The {@code prefix} query parameter, decoded; "" when absent. */
  private static String prefix(String rawQuery) {
    if (rawQuery != null) {
      for (String pair : rawQuery.split("&")) {
        if (pair.startsWith("prefix=")) {
          return URLDecoder.decode(pair.substring(7), StandardCharsets.UTF_8);
        }
      }
    }
    return "";
  }

  private static String error(String message) {
    return "{\"error\":\"" + message.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}";
  }

  /** The bound address (the real port when 0 was asked for). */
  public InetSocketAddress address() {
    return server.getAddress();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
