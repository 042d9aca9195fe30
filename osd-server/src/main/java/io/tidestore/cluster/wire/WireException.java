package io.tidestore.cluster.wire;

import java.io.IOException;

/** A monitor's refusal ({@link MonFrame#ERROR}) or a frame this side cannot read, with its code. */
public final class WireException extends IOException {
  private static final long serialVersionUID = 1L;

  /** A frame or payload that does not parse. */
  public static final int BAD_REQUEST = 1;

  /** The map refused the command (pool exists, id taken...): the message says why. */
  public static final int REFUSED = 2;

  /** The monitors could not commit in time (no quorum): another monitor may. */
  public static final int NO_QUORUM = 3;

  /** Another protocol version. */
  public static final int VERSION = 4;

  /** This monitor is not the right one to answer (e.g. it has no map yet). */
  public static final int NOT_READY = 5;

  /**
   * The monitor's TLS or {@code --auth-file} does not let this client do it (plaintext to a
   * TLS-only monitor, a certificate refused, a cap missing): every monitor would say the same.
   */
  public static final int NOT_ALLOWED = 6;

  private final int code;
  private final long requestId;

  public WireException(int code, String message) {
    this(code, message, 0);
  }

  public WireException(int code, String message, long requestId) {
    super(message);
    this.code = code;
    this.requestId = requestId;
  }

  public int code() {
    return code;
  }

  /** The request it answers, when known (0 otherwise). */
  public long requestId() {
    return requestId;
  }

  /** Whether another monitor might answer the same request differently. */
  public boolean tryAnotherMonitor() {
    return code == NO_QUORUM || code == NOT_READY;
  }
}
