package io.tidestore.store.io;

import java.io.IOException;

/**
 * A failed I/O operation: the kernel's errno (a negative {@code res} of a completion, or the errno
 * of a fallback call) and what was asked.
 */
public class IoOpException extends IOException {
  private static final long serialVersionUID = 1L;

  /** The kinds of operation an {@link IoQueue} performs. */
  public enum Op {
    READ,
    WRITE,
    WRITE_DURABLE,
    SYNC,
    WRITE_THEN_SYNC
  }

  private final int errno;
  private final Op op;
  private final long offset;
  private final long length;

  public IoOpException(Op op, int errno, long offset, long length, String detail) {
    super(
        op + " offset " + offset + " length " + length + ": " + detail + " (errno " + errno + ")");
    this.op = op;
    this.errno = errno;
    this.offset = offset;
    this.length = length;
  }

  /** The positive errno value (e.g. 22 for EINVAL); 0 when the failure had none. */
  public int errno() {
    return errno;
  }

  public Op op() {
    return op;
  }

  public long offset() {
    return offset;
  }

  public long length() {
    return length;
  }
}
