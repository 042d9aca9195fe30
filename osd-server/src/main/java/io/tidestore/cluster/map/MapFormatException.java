package io.tidestore.cluster.map;

import java.io.IOException;

/** Bytes that are not a map or command this version can read: damaged, truncated or too new. */
public final class MapFormatException extends IOException {
  private static final long serialVersionUID = 1L;

  public MapFormatException(String message) {
    super(message);
  }
}
