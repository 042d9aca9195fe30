package io.tidestore.osd.security;

import java.util.Locale;

/**
 * Why a request was refused, the {@code reason} label of {@code tidestore_ops_refused_total}: the
 * client has no certificate (a plaintext connection, or TLS without one), the auth file does not
 * name it, or its grants lack the read, write or administration cap the request needs.
 */
public enum Refusal {
  NO_CERTIFICATE,
  UNKNOWN_CLIENT,
  NO_READ_CAP,
  NO_WRITE_CAP,
  NO_ADMIN_CAP;

  /** The metric label. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Why {@code caps} do not allow {@code needed}. */
  static Refusal of(Caps caps, Access needed) {
    if (caps.identity() == null) {
      return NO_CERTIFICATE;
    }
    if (caps.grants().isEmpty()) {
      return UNKNOWN_CLIENT;
    }
    return switch (needed) {
      case READ -> NO_READ_CAP;
      case READ_WRITE -> NO_WRITE_CAP;
      case ALL -> NO_ADMIN_CAP;
    };
  }
}
