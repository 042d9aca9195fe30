package io.tidestore.store.io.uring;

import io.tidestore.store.io.Errno;
import java.io.IOException;

/**
 * io_uring could not be set up: io_uring_setup(2) failed (ENOSYS: no kernel support; EPERM:
 * disabled by the kernel.io_uring_disabled sysctl or a seccomp filter; EACCES, ENOMEM, ...) or the
 * kernel lacks a feature the queue needs. {@link #errno()} says which, so the factory can decide
 * between falling back and failing.
 */
public final class IoUringSetupException extends IOException {
  private static final long serialVersionUID = 1L;

  private final int errno;

  public IoUringSetupException(String what, int errno) {
    super(what + ": " + Errno.name(errno));
    this.errno = errno;
  }

  /** The positive errno of the failed call. */
  public int errno() {
    return errno;
  }
}
