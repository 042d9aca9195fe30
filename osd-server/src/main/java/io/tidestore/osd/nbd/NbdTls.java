package io.tidestore.osd.nbd;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.SslHandler;
import io.tidestore.osd.security.Caps;
import io.tidestore.osd.security.ServerSecurity;
import io.tidestore.osd.security.TlsMode;
import java.util.logging.Logger;

/**
 * One connection's TLS and what its client may do, as nbdkit does it: NBD_OPT_STARTTLS answers
 * NBD_REP_ERR_POLICY under {@code --tls off}; otherwise the ACK goes out in clear and a TLS handler
 * is put in front of the handshake, whose option haggling starts over inside TLS. Under {@code
 * --tls require} every option but STARTTLS and ABORT before that gets NBD_REP_ERR_TLS_REQD (and
 * EXPORT_NAME, which has no error reply, closes). The client's caps come from its certificate
 * ({@link ServerSecurity#caps}); a plaintext client has none when there is an auth file. One
 * instance per connection, on its event loop.
 */
final class NbdTls {
  private static final Logger LOG = Logger.getLogger(NbdTls.class.getName());

  /** How the log lines and the handshake failures name this listener. */
  private static final String LISTENER = "NBD";

  /** What {@link #startTls} did. */
  enum Outcome {
    /** Answered with an error; the connection stays in clear. */
    REFUSED,
    /** TLS is starting: every negotiated option is void. */
    STARTED,
    /** A protocol violation: the connection is closing. */
    CLOSED
  }

  private final ServerSecurity security;
  private final String pool;
  private boolean active;
  private Caps caps; // computed once TLS is up (or at first use in clear)

  NbdTls(ServerSecurity security, String pool) {
    this.security = security;
    this.pool = pool;
  }

  /** Whether {@code option} must be refused with NBD_REP_ERR_TLS_REQD. */
  boolean required(int option) {
    return security.mode() == TlsMode.REQUIRE
        && !active
        && option != Nbd.OPT_STARTTLS
        && option != Nbd.OPT_ABORT;
  }

  boolean active() {
    return active;
  }

  /**
   * Answers NBD_OPT_STARTTLS with {@code data}; {@code rest} is what the client sent after it,
   * which must be nothing: it waits for our ACK before its TLS ClientHello.
   */
  Outcome startTls(ChannelHandlerContext ctx, ByteBuf data, ByteBuf rest) {
    int option = Nbd.OPT_STARTTLS;
    if (data.isReadable()) {
      NbdOptionReplies.text(ctx, option, Nbd.REP_ERR_INVALID, "NBD_OPT_STARTTLS takes no data");
      return Outcome.REFUSED;
    }
    if (security.mode() == TlsMode.OFF) {
      NbdOptionReplies.text(
          ctx, option, Nbd.REP_ERR_POLICY, "TLS is off on this server (--tls off)");
      return Outcome.REFUSED;
    }
    if (active) {
      NbdOptionReplies.text(ctx, option, Nbd.REP_ERR_INVALID, "TLS is already in use");
      return Outcome.REFUSED;
    }
    NbdOptionReplies.reply(ctx, option, Nbd.REP_ACK, null);
    if (rest.isReadable()) {
      LOG.warning(
          ctx.channel().remoteAddress()
              + ": NBD client sent "
              + rest.readableBytes()
              + " bytes after NBD_OPT_STARTTLS before our reply, closing");
      rest.skipBytes(rest.readableBytes());
      ctx.close();
      return Outcome.CLOSED;
    }
    // Our writes from here on pass through it; the ACK above is already on its way in clear.
    security.startTls(ctx, LISTENER);
    active = true;
    caps = null;
    return Outcome.STARTED;
  }

  /** What this connection's client may do. */
  Caps caps(ChannelHandlerContext ctx) {
    if (caps == null) {
      SslHandler tls = active ? ctx.pipeline().get(SslHandler.class) : null;
      caps = security.caps(tls == null ? null : tls.engine().getSession());
    }
    return caps;
  }

  boolean canRead(ChannelHandlerContext ctx, String image) {
    return caps(ctx).canRead(pool, image);
  }

  boolean canWrite(ChannelHandlerContext ctx, String image) {
    return caps(ctx).canWrite(pool, image);
  }

  /** Who the client is, for refusals and log lines. */
  String who(ChannelHandlerContext ctx) {
    return caps(ctx).who();
  }
}
