package io.tidestore.osd.security;

import java.util.List;

/**
 * Everything one client may do: the union of its grants. A client with no grant may do nothing; one
 * whose daemon has no auth file may do everything ({@link #FULL}).
 */
public record Caps(String identity, List<Grant> grants) {
  /** What every client gets when the daemon has no auth file. */
  public static final Caps FULL = new Caps(null, List.of(new Grant(Access.ALL, null, null)));

  public Caps {
    grants = List.copyOf(grants);
  }

  /** Everything, for {@code identity} (null: no certificate), when there is no auth file. */
  public static Caps full(String identity) {
    return identity == null ? FULL : new Caps(identity, FULL.grants());
  }

  /** Nothing at all (a client the auth file does not name, or one without a certificate). */
  public static Caps none(String identity) {
    return new Caps(identity, List.of());
  }

  /**
   * Whether some grant allows {@code needed} on {@code image} of {@code pool}; a null image is
   * pool-wide (listing, metrics), which only grants not narrowed to an image allow.
   */
  public boolean allows(Access needed, String pool, String image) {
    for (int i = 0; i < grants.size(); i++) {
      if (grants.get(i).allows(needed, pool, image)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether some grant allows {@code needed} on the object named {@code object} in {@code pool}; an
   * object belongs to an image by its name ({@link ImageObjects}). Allocates nothing: the object
   * protocol asks it for every op.
   */
  public boolean allowsObject(Access needed, String pool, String object) {
    for (int i = 0; i < grants.size(); i++) {
      if (grants.get(i).allowsObject(needed, pool, object)) {
        return true;
      }
    }
    return false;
  }

  /** Why these caps do not allow {@code needed} (for the refusal's message and its metric). */
  public Refusal refusal(Access needed) {
    return Refusal.of(this, needed);
  }

  /** Whether some grant allows reading {@code image} of {@code pool}. */
  public boolean canRead(String pool, String image) {
    return allows(Access.READ, pool, image);
  }

  /** Whether some grant allows writing {@code image} of {@code pool}. */
  public boolean canWrite(String pool, String image) {
    return allows(Access.READ_WRITE, pool, image);
  }

  /** Administration needs {@code *} not narrowed to a pool or an image. */
  public boolean admin() {
    for (Grant g : grants) {
      if (g.access() == Access.ALL && g.unrestricted()) {
        return true;
      }
    }
    return false;
  }

  /** Who, for log lines and refusals. */
  public String who() {
    return identity == null ? "a client without a certificate" : "client '" + identity + "'";
  }

  /**
   * Why a request that needs {@code needed} is refused, in words: for the reply's message and the
   * log.
   */
  public String whyRefused(Access needed) {
    return switch (refusal(needed)) {
      case NO_CERTIFICATE ->
          "the daemon's --auth-file grants access by client certificate and this connection"
              + " presented none";
      case UNKNOWN_CLIENT -> "the daemon's --auth-file has no grant for " + who();
      case NO_READ_CAP, NO_WRITE_CAP, NO_ADMIN_CAP ->
          who() + " needs '" + needed.word() + "' here but has only " + grants;
    };
  }
}
