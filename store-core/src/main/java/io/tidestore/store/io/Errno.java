package io.tidestore.store.io;

/**
 * The errno values the I/O layer reports, from {@code <asm-generic/errno-base.h>} and {@code
 * <asm-generic/errno.h>} (identical on x86-64 and aarch64). A completion's negative {@code res} is
 * one of these, negated.
 */
public final class Errno {
  public static final int EPERM = 1;
  public static final int EINTR = 4;
  public static final int EIO = 5;
  public static final int EBADF = 9;
  public static final int EAGAIN = 11;
  public static final int ENOMEM = 12;
  public static final int EACCES = 13;
  public static final int EFAULT = 14;
  public static final int EBUSY = 16;
  public static final int EINVAL = 22;
  public static final int ENOSPC = 28;
  public static final int ENOSYS = 38;
  public static final int ETIME = 62;
  public static final int EOVERFLOW = 75;
  public static final int ECANCELED = 125;

  private Errno() {}

  /** The symbolic name of an errno value, for messages; "errno N" when not one of ours. */
  public static String name(int errno) {
    return switch (errno) {
      case EPERM -> "EPERM";
      case EINTR -> "EINTR";
      case EIO -> "EIO";
      case EBADF -> "EBADF";
      case EAGAIN -> "EAGAIN";
      case ENOMEM -> "ENOMEM";
      case EACCES -> "EACCES";
      case EFAULT -> "EFAULT";
      case EBUSY -> "EBUSY";
      case EINVAL -> "EINVAL";
      case ENOSPC -> "ENOSPC";
      case ENOSYS -> "ENOSYS";
      case ETIME -> "ETIME";
      case EOVERFLOW -> "EOVERFLOW";
      case ECANCELED -> "ECANCELED";
      default -> "errno " + errno;
    };
  }
}
