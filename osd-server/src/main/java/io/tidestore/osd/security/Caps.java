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

  /** Nothing at all (a client the auth file does not name, or one without a certificate). */
  public static Caps none(String identity) {
    return new Caps(identity, List.of());
  }

  /** Whether some grant allows {@code needed} on {@code image} of {@code pool}. */
  public boolean allows(Access needed, String pool, String image) {
    for (Grant g : grants) {
      if (g.allows(needed, pool, image)) {
        return true;
      }
    }
    return false;
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
}
