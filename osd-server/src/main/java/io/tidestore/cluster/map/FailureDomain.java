package io.tidestore.cluster.map;

import java.util.Locale;

/**
 * What two replicas of one PG must not share (CRUSH's failure domain type): one replica per OSD, or
 * one per host label. Placement reads it from the pool.
 */
public enum FailureDomain {
  OSD,
  HOST;

  /** The word used on command lines and in JSON: {@code osd} or {@code host}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses {@code osd} or {@code host} (any case). */
  public static FailureDomain parse(String text) {
    for (FailureDomain domain : values()) {
      if (domain.label().equalsIgnoreCase(text.trim())) {
        return domain;
      }
    }
    throw new IllegalArgumentException("'" + text + "' is not a failure domain (osd or host)");
  }
}
