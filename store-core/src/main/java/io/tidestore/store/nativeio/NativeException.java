package io.tidestore.store.nativeio;

import java.io.IOException;

/** A failed native call, with the errno the kernel returned and what was being done. */
public class NativeException extends IOException {
  private static final long serialVersionUID = 1L;

  private final int errno;

  public NativeException(String operation, int errno) {
    super(operation + ": " + describe(errno));
    this.errno = errno;
  }

  /** The positive errno value, e.g. {@link Libc#EINVAL}. */
  public int errno() {
    return errno;
  }

  private static String describe(int errno) {
    String text = Libc.get().map(libc -> libc.strerror(errno)).orElse("errno " + errno);
    return text + " (errno " + errno + ")";
  }
}
