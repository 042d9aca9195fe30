package io.tidestore.osd.protocol;

/**
 * A failed object op with its protocol {@link Status} code. {@link ObjectOps} implementations
 * complete exceptionally with it to choose the reply status; the client fails futures with it.
 */
public class OpException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;

  public OpException(int status, String message) {
    super(Status.name(status) + ": " + message);
    this.status = status;
  }

  /** The {@link Status} code. */
  public int status() {
    return status;
  }
}
