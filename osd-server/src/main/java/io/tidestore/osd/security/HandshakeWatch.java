package io.tidestore.osd.security;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.util.logging.Logger;

/**
 * Sits right after a listener's TLS handler: a failed handshake (plaintext to a TLS port, garbage,
 * a certificate refused, a timeout, a client gone mid-handshake) is counted, logged in one line
 * with its reason and the peer, and the connection closed; the exception Netty raises after the
 * event is swallowed so it is not logged again with a stack trace further down the pipeline. A TLS
 * error after the handshake (a bad record, an alert) also closes with one line. One per channel;
 * runs on its event loop.
 */
final class HandshakeWatch extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = Logger.getLogger(HandshakeWatch.class.getName());

  private final String listener;
  private final SecurityCounters counters;
  private boolean reported;

  HandshakeWatch(String listener, SecurityCounters counters) {
    this.listener = listener;
    this.counters = counters;
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof SslHandshakeCompletionEvent done && !done.isSuccess()) {
      report(ctx, done.cause(), true);
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (reported) {
      ctx.close();
    } else if (TlsErrors.isTls(cause)) {
      SslHandler tls = ctx.pipeline().get(SslHandler.class);
      report(ctx, cause, tls == null || !tls.handshakeFuture().isSuccess());
    } else {
      ctx.fireExceptionCaught(cause);
    }
  }

  /** Counts (a handshake failure), logs one line and closes, once per connection. */
  private void report(ChannelHandlerContext ctx, Throwable cause, boolean handshake) {
    if (reported) {
      return;
    }
    reported = true;
    if (handshake) {
      counters.handshakeFailed();
    }
    LOG.warning(
        listener
            + (handshake ? ": TLS handshake with " : ": TLS error from ")
            + ctx.channel().remoteAddress()
            + " failed: "
            + TlsErrors.describe(cause)
            + "; closing");
    ctx.close();
  }
}
