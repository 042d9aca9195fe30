package io.tidestore.osd.protocol;

/**
 * A failure with its protocol {@link Status} code, in the protocol's own terms: the server throws
 * it for a request it refuses before any op runs (a malformed body, an unknown op, no HELLO), and
 * the client fails futures with it when a reply carries a status other than OK. Failed object ops
 * are {@link io.tidestore.osd.ops.ObjectOpsException}s, which the server replies with {@link
 * OpsStatus}.
 */
public class OpException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;

  /** {@code message} is prefixed with the status's name unless it starts with it already. */
  public OpException(int status, String message) {
    super(
        message != null && message.startsWith(Status.name(status) + ": ")
            ? message
            : Status.name(status) + ": " + message);
    this.status = status;
  }

  /** The {@link Status} code. */
  public int status() {
    return status;
  }
}
