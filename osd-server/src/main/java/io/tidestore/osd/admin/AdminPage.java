package io.tidestore.osd.admin;

import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.List;
import java.util.Set;

/**
 * One page of the admin listener: the methods it answers, the cap its caller needs, and what it
 * answers.
 *
 * @param methods the HTTP methods served (others get 405)
 * @param need what the caller's grants must allow
 * @param responder builds the answer; runs on the admin thread and may block briefly
 */
record AdminPage(Set<HttpMethod> methods, Need need, Responder responder) {
  /** The cap a page needs when the daemon has an auth file. */
  enum Need {
    /** {@code r} on the daemon's pool, not narrowed to an image: metrics and status. */
    READ,
    /** {@code *}, not narrowed: everything that changes or dumps the daemon's state. */
    ADMIN
  }

  @FunctionalInterface
  interface Responder {
    Response respond(Query query);
  }

  /** A GET (and HEAD) page. */
  static AdminPage get(Need need, Responder responder) {
    return new AdminPage(Set.of(HttpMethod.GET, HttpMethod.HEAD), need, responder);
  }

  /** The request's query parameters. */
  record Query(QueryStringDecoder decoder) {
    /** The first value of {@code name}, decoded; "" when absent. */
    String parameter(String name) {
      List<String> values = decoder.parameters().get(name);
      return values == null || values.isEmpty() ? "" : values.getFirst();
    }
  }

  /** An answer: status, content type and body. */
  record Response(int status, String contentType, String body) {
    static Response ok(String contentType, String body) {
      return new Response(200, contentType, body);
    }

    /** {@code {"error":"message"}} with {@code status}. */
    static Response error(int status, String message) {
      return new Response(
          status,
          "application/json; charset=utf-8",
          "{\"error\":\"" + jsonEscaped(message == null ? "" : message) + "\"}");
    }

    /**
     * {@code text} inside a JSON string: quote, backslash and the control characters escaped
     * (messages quote the request's decoded path and parameters, which may hold any of them).
     */
    private static String jsonEscaped(String text) {
      StringBuilder sb = new StringBuilder(text.length() + 16);
      for (int i = 0; i < text.length(); i++) {
        char c = text.charAt(i);
        if (c == '"' || c == '\\') {
          sb.append('\\').append(c);
        } else if (c < 0x20) {
          sb.append(String.format("\\u%04x", (int) c));
        } else {
          sb.append(c);
        }
      }
      return sb.toString();
    }
  }
}
