package io.tidestore.osd.admin;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.timeout.IdleStateEvent;
import io.tidestore.osd.admin.AdminPage.Need;
import io.tidestore.osd.admin.AdminPage.Response;
import io.tidestore.osd.security.Access;
import io.tidestore.osd.security.Caps;
import io.tidestore.osd.security.Refusal;
import io.tidestore.osd.security.ServerSecurity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * Serves one admin connection: finds the page, checks the method and the caller's grants (taken
 * once, from the connection's TLS session), answers. A refused request gets 403 with the reason,
 * counted; the first refusal of a connection is logged. One per channel, on the admin thread.
 */
// Netty write futures: a failed write closes the channel.
@SuppressWarnings("FutureReturnValueIgnored")
final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
  private static final Logger LOG = Logger.getLogger(AdminHandler.class.getName());

  private final Map<String, AdminPage> pages;
  private final ServerSecurity security;
  private Caps caps;
  private boolean refusalLogged;

  AdminHandler(Map<String, AdminPage> pages, ServerSecurity security) {
    this.pages = pages;
    this.security = security;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
    if (request.decoderResult().isFailure()) {
      send(ctx, request, Response.error(400, "malformed HTTP request"), null, false);
      return;
    }
    QueryStringDecoder query = new QueryStringDecoder(request.uri());
    try {
      // Decoded here, not lazily inside a page, so a bad %-escape is the client's 400 and never
      // an exception out of this handler (no answer) or out of a page (a 500).
      query.path();
      query.parameters();
    } catch (IllegalArgumentException e) {
      send(
          ctx,
          request,
          Response.error(400, "bad request target: " + e.getMessage()),
          null,
          HttpUtil.isKeepAlive(request));
      return;
    }
    AdminPage page = pages.get(query.path());
    Response response;
    if (page == null) {
      response = Response.error(404, "no page " + query.path() + "; the pages: " + pages.keySet());
    } else if (!page.methods().contains(request.method())) {
      response = Response.error(405, request.method() + " is not served at " + query.path());
    } else {
      response = authorize(ctx, page.need(), request.method() + " " + query.path());
      if (response == null) {
        try {
          response = page.responder().respond(new AdminPage.Query(query));
        } catch (RuntimeException e) {
          LOG.log(Level.WARNING, "admin page " + request.uri() + " failed", e);
          response = Response.error(500, e.toString());
        }
      }
    }
    String allow = response.status() == 405 ? allowed(page) : null;
    send(ctx, request, response, allow, HttpUtil.isKeepAlive(request));
  }

  /** Null when the caller may, else the 403 answer (counted; the first one logged). */
  private Response authorize(ChannelHandlerContext ctx, Need need, String what) {
    if (caps == null) {
      caps = security.caps(ctx.channel());
    }
    boolean allowed =
        switch (need) {
          case READ -> caps.allows(Access.READ, ServerSecurity.STANDALONE_POOL, null);
          case ADMIN -> caps.admin();
        };
    if (allowed) {
      return null;
    }
    Access needed = need == Need.READ ? Access.READ : Access.ALL;
    Refusal why = caps.refusal(needed);
    security.counters().refused(why);
    String message = what + " refused: " + caps.whyRefused(needed);
    if (!refusalLogged) {
      refusalLogged = true;
      LOG.warning(
          "admin http: "
              + ctx.channel().remoteAddress()
              + ": "
              + message
              + " (further refusals on this connection are counted, not logged)");
    }
    return Response.error(403, message);
  }

  private static String allowed(AdminPage page) {
    return page.methods().stream().map(HttpMethod::name).sorted().collect(Collectors.joining(", "));
  }

  /** Writes {@code response}; HEAD gets the headers of GET without the body. */
  private static void send(
      ChannelHandlerContext ctx,
      FullHttpRequest request,
      Response response,
      String allow,
      boolean keepAlive) {
    byte[] body = response.body().getBytes(StandardCharsets.UTF_8);
    boolean head = HttpMethod.HEAD.equals(request.method());
    ByteBuf content = head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body);
    FullHttpResponse reply =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(response.status()), content);
    reply.headers().set(HttpHeaderNames.CONTENT_TYPE, response.contentType());
    reply.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
    if (allow != null) {
      reply.headers().set(HttpHeaderNames.ALLOW, allow);
    }
    if (keepAlive) {
      reply.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
      ctx.writeAndFlush(reply);
    } else {
      reply.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      ctx.writeAndFlush(reply).addListener(ChannelFutureListener.CLOSE);
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof IdleStateEvent) {
      ctx.close();
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof IOException) {
      LOG.fine(ctx.channel().remoteAddress() + ": " + cause.getMessage() + ", closing");
    } else {
      LOG.log(Level.WARNING, ctx.channel().remoteAddress() + ": admin connection failed", cause);
    }
    ctx.close();
  }
}
