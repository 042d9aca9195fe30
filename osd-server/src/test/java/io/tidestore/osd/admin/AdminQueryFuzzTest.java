package io.tidestore.osd.admin;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.tidestore.osd.metrics.CachedScrapes;
import io.tidestore.osd.metrics.OsdMetrics;
import io.tidestore.osd.security.ServerSecurity;
import io.tidestore.osd.security.TlsMode;
import io.tidestore.store.testing.AllocationBound;
import io.tidestore.store.testing.LogTrap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Fuzzes the admin listener's requests: each input line is {@code METHOD TARGET} (a line without a
 * space is a GET of it), sent as an HTTP/1.1 request to the real pipeline ({@link
 * AdminHttpServer#initConnection}: Netty's codec, the aggregator, {@link AdminHandler}) on an
 * EmbeddedChannel, over the daemon's pages with a real {@link OsdMetrics} behind {@code /metrics}
 * and {@code /dump_metrics?prefix=P} (its scrape taken again every 100 pages, {@link
 * CachedScrapes}). Line feeds end lines and carriage returns are dropped, so that each line is
 * exactly one request. The contract (docs/operations.md, AdminHttpServer): every request gets
 * exactly one response, in order, with 200 or a client error (400 for a malformed request or
 * target, 404, 405 with Allow), never a 5xx; a JSON body parses, an error's as {@code {"error":
 * ...}}; Content-Length is the body; the connection closes only when the response says so. Nothing
 * logged at SEVERE or with a trace; allocation bounded.
 */
class AdminQueryFuzzTest {
  private static final LogTrap LOG = LogTrap.on("io.tidestore");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_REQUESTS = 16;
  private static final Set<Integer> STATUSES = Set.of(200, 400, 404, 405);
  private static final OsdMetrics METRICS = new OsdMetrics();
  // A real scrape of METRICS, taken again every 100 pages: one takes 1 to 4 ms (CachedScrapes).
  private static final CachedScrapes SCRAPES = new CachedScrapes(METRICS, 100);
  private static final Map<String, AdminPage> PAGES = pages();

  private static Map<String, AdminPage> pages() {
    METRICS.registry().counter("tidestore_fuzz_requests", "kind", "a\"b\\c").increment();
    Map<String, AdminPage> pages =
        AdminHttpServer.pages(
            SCRAPES::scrape,
            SCRAPES::dumpJson,
            () -> "{\"status\":\"ok\"}",
            policy ->
                switch (policy) { // StoreAdmin's answers, without a store
                  case "lru", "2q" -> "{\"policy\":\"" + policy + "\",\"shards\":1}";
                  default ->
                      throw new IllegalArgumentException(
                          "policy must be lru or 2q, got '" + policy + "'");
                });
    pages.put("/scrub", AdminHttpServer.postPage("/scrub", () -> "{\"scrub\":\"started\"}"));
    return pages;
  }

  @FuzzTest
  void requests(byte[] input) {
    AllocationBound.check("admin requests", input.length, 16 << 20, 1024, () -> exercise(input));
  }

  private static void exercise(byte[] input) {
    EmbeddedChannel server = new EmbeddedChannel();
    AdminHttpServer.initConnection(server, PAGES, ServerSecurity.plaintext(), TlsMode.OFF);
    ResponseDecoder decoder = new ResponseDecoder();
    EmbeddedChannel client = new EmbeddedChannel(decoder, new HttpObjectAggregator(1 << 20));
    try {
      int sent = 0;
      for (String line : new String(input, ISO_8859_1).split("\n", -1)) {
        String request = line.replace("\r", "");
        if (request.isEmpty()) {
          continue;
        }
        if (sent++ == MAX_REQUESTS || !server.isOpen()) {
          break;
        }
        int space = request.indexOf(' ');
        String method = space < 0 ? "GET" : request.substring(0, space);
        String target = space < 0 ? request : request.substring(space + 1);
        decoder.head = method.equals("HEAD");
        server.writeInbound(
            Unpooled.wrappedBuffer(
                (method + " " + target + " HTTP/1.1\r\nHost: tidestore\r\n\r\n")
                    .getBytes(ISO_8859_1)));
        server.runPendingTasks();
        FullHttpResponse response = onlyResponse(server, client, request);
        try {
          check(response, decoder.head, request);
          boolean closes =
              response.headers().contains(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE, true);
          assertEquals(closes, !server.isOpen(), "closed after " + request);
        } finally {
          response.release();
        }
      }
      LOG.check();
    } finally {
      server.finishAndReleaseAll();
      client.finishAndReleaseAll();
    }
  }

  /** The one response the server wrote to {@code request}, decoded as a client would. */
  private static FullHttpResponse onlyResponse(
      EmbeddedChannel server, EmbeddedChannel client, String request) {
    for (ByteBuf out; (out = server.readOutbound()) != null; ) {
      client.writeInbound(out);
    }
    List<FullHttpResponse> responses = new ArrayList<>();
    for (FullHttpResponse r; (r = client.readInbound()) != null; ) {
      responses.add(r);
    }
    if (responses.size() != 1) {
      responses.forEach(FullHttpResponse::release);
      throw new AssertionError(responses.size() + " responses to " + request);
    }
    return responses.getFirst();
  }

  private static void check(FullHttpResponse response, boolean head, String request) {
    int status = response.status().code();
    assertTrue(response.decoderResult().isSuccess(), "undecodable response to " + request);
    assertTrue(STATUSES.contains(status), status + " for " + request);
    if (status == 405) {
      assertNotNull(response.headers().get(HttpHeaderNames.ALLOW), "405 without Allow");
    }
    if (head
        && !response.headers().contains(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE, true)) {
      assertEquals(0, response.content().readableBytes(), "a body for HEAD " + request);
      return;
    }
    String body = response.content().toString(UTF_8);
    assertEquals(
        response.content().readableBytes(),
        response.headers().getInt(HttpHeaderNames.CONTENT_LENGTH, -1),
        "Content-Length of " + request);
    String type = response.headers().get(HttpHeaderNames.CONTENT_TYPE, "");
    if (type.startsWith("application/json")) {
      JsonNode json;
      try {
        json = JSON.readTree(body);
      } catch (JacksonException e) {
        throw new AssertionError("not JSON, the answer to " + request + ": " + body, e);
      }
      if (status != 200) {
        assertTrue(json.path("error").isTextual(), "an error without its reason: " + body);
      }
    }
  }

  /**
   * Netty's response decoder, told when the response answers a HEAD (no body follows). A request
   * Netty's codec could not parse is answered as a GET (its method is unknown) and closed; the
   * harness's own requests never ask for a close, so a closing response is such an answer.
   */
  private static final class ResponseDecoder extends HttpResponseDecoder {
    boolean head;

    @Override
    protected boolean isContentAlwaysEmpty(HttpMessage msg) {
      boolean closes =
          msg.headers().contains(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE, true);
      return (head && !closes) || super.isContentAlwaysEmpty(msg);
    }
  }
}
