package io.tidestore.mon;

import io.tidestore.cluster.wire.MonFrame;
import io.tidestore.cluster.wire.WireException;
import io.tidestore.osd.security.Access;
import io.tidestore.osd.security.Caps;
import io.tidestore.osd.security.SecurityCounters;

/**
 * Which cap each monitor request needs (docs/security.md "Caps"): reading the map or the status
 * needs {@code r}, changing the map (an OSD's boot and heartbeats, pool create and rm) and the PG
 * history (which only OSDs use) need {@code *}; both not narrowed to a pool or an image, since the
 * map is the whole cluster's. Without an {@code --auth-file} every client has {@link Caps#FULL}.
 */
final class MonAccess {
  private MonAccess() {}

  /** The cap a request of {@code type} needs; null for a type the monitor does not know. */
  static Access needed(int type) {
    return switch (type) {
      case MonFrame.GET_MAP, MonFrame.SUBSCRIBE, MonFrame.MON_STATUS, MonFrame.PG_STATS ->
          Access.READ;
      case MonFrame.BOOT,
          MonFrame.HEARTBEAT,
          MonFrame.POOL_CREATE,
          MonFrame.POOL_REMOVE,
          MonFrame.PG_ACTIVATED,
          MonFrame.PG_HISTORY ->
          Access.ALL;
      default -> null;
    };
  }

  /**
   * Refuses a request of {@code type} that {@code caps} do not allow, counted in {@code counters};
   * an unknown type passes, for {@link MonRequests} to answer.
   */
  static void check(int type, Caps caps, SecurityCounters counters) throws WireException {
    Access needed = needed(type);
    if (needed == null) {
      return;
    }
    boolean allowed = needed == Access.ALL ? caps.admin() : caps.allows(needed, null, null);
    if (!allowed) {
      counters.refused(caps.refusal(needed));
      throw new WireException(WireException.NOT_ALLOWED, caps.whyRefused(needed));
    }
  }
}
