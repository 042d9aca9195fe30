package io.tidestore.osd.net;

import io.netty.channel.ChannelHandlerContext;
import java.io.IOException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * How a connection handler ends a connection that failed: resets and broken pipes are the peer's
 * business and get one line without a trace; anything else is a bug or a broken invariant and is
 * logged with its trace. Stateless.
 */
public final class ConnectionErrors {
  private ConnectionErrors() {}

  /** Logs {@code cause} to {@code log} ({@code failed} heads a non-I/O failure) and closes. */
  public static void closeAfter(
      ChannelHandlerContext ctx, Throwable cause, Logger log, String failed) {
    if (cause instanceof IOException) {
      log.info(ctx.channel().remoteAddress() + ": " + cause.getMessage() + ", closing");
    } else {
      log.log(Level.WARNING, ctx.channel().remoteAddress() + ": " + failed, cause);
    }
    ctx.close();
  }
}
