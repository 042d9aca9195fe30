package io.tidestore.store.io;

/** The implementations of {@link IoQueue}. */
public enum IoBackend {
  /** io_uring through java.lang.foreign system calls. */
  IO_URING,
  /** FileChannel with ExtendedOpenOption.DIRECT on worker threads, when io_uring is unavailable. */
  FILE_CHANNEL;

  /** The flag's spelling: {@code io_uring} or {@code filechannel}. */
  public String label() {
    return this == IO_URING ? "io_uring" : "filechannel";
  }
}
