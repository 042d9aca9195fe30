package io.tidestore.osd.protocol;

import io.netty.channel.Channel;
import io.tidestore.osd.security.Access;
import io.tidestore.osd.security.Caps;
import io.tidestore.osd.security.ImageObjects;
import io.tidestore.osd.security.ServerSecurity;
import java.util.logging.Logger;

/**
 * What one connection's client may do, checked before an op reaches the store: reads (READ, STAT,
 * GETXATTR) need {@code r} on the object's image and pool, mutations {@code rw}, LIST {@code r} on
 * the pool not narrowed to an image (it names every image's objects). A refusal is EPERM, counted
 * by reason; the connection's first is logged, the rest only counted, so a client retrying in a
 * loop cannot flood the log. The caps are taken once, from the TLS session, after HELLO. One per
 * connection, on its event loop.
 */
final class OpAccess {
  private static final Logger LOG = Logger.getLogger(OpAccess.class.getName());

  private final ServerSecurity security;
  private final Caps caps;
  private final Channel channel;
  private boolean logged;

  OpAccess(ServerSecurity security, Channel channel) {
    this.security = security;
    this.caps = security.caps(channel);
    this.channel = channel;
  }

  /** Throws EPERM unless the client may do {@code op} on the object {@code name}. */
  void check(int op, String name) {
    check(op, name, ServerSecurity.STANDALONE_POOL);
  }

  /**
   * Throws EPERM unless the client may do {@code op} on the object {@code name} of {@code pool}.
   */
  void check(int op, String name, String pool) {
    Access needed = Op.mutates(op) ? Access.READ_WRITE : Access.READ;
    if (!caps.allowsObject(needed, pool, name)) {
      String image = ImageObjects.imageOf(name);
      throw refuse(
          needed,
          Op.name(op)
              + " of "
              + name
              + " ("
              + (image == null ? "no image" : "image " + image)
              + ", pool "
              + pool
              + ")");
    }
  }

  /** Throws EPERM unless the client may list the pool. */
  void checkList() {
    if (!caps.allows(Access.READ, ServerSecurity.STANDALONE_POOL, null)) {
      throw refuse(Access.READ, "list of pool " + ServerSecurity.STANDALONE_POOL);
    }
  }

  /** Throws EPERM unless the peer may send OSD-to-OSD ops: those need {@code *} (an OSD's cap). */
  void checkPeer(int op) {
    if (!caps.allows(Access.ALL, null, null)) {
      throw refuse(Access.ALL, Op.name(op) + " (an OSD's op)");
    }
  }

  private OpException refuse(Access needed, String what) {
    security.counters().refused(caps.refusal(needed));
    String message = what + " refused: " + caps.whyRefused(needed);
    if (!logged) {
      logged = true;
      LOG.warning(
          "object protocol: "
              + channel.remoteAddress()
              + ": "
              + "EPERM, "
              + message
              + " (further refusals on this connection are counted, not logged)");
    }
    return new OpException(Status.EPERM, message);
  }
}
