package io.tidestore.osd.protocol;

/**
 * Reply status codes: 0 for success, else the Linux errno value that names the failure
 * (asm-generic/errno-base.h, errno.h), so they read like Ceph's negative-errno results.
 */
public final class Status {
  public static final int OK = 0;
  public static final int EPERM = 1;
  public static final int ENOENT = 2;
  public static final int EIO = 5;
  public static final int ENOMEM = 12;
  public static final int EAGAIN = 11;
  public static final int EEXIST = 17;
  public static final int EINVAL = 22;
  public static final int EFBIG = 27;
  public static final int ENOSPC = 28;
  public static final int EROFS = 30;
  public static final int ENAMETOOLONG = 36;
  public static final int ENODATA = 61;
  public static final int EPROTO = 71;
  public static final int EBADMSG = 74;
  public static final int EMSGSIZE = 90;
  public static final int EOPNOTSUPP = 95;
  public static final int ESHUTDOWN = 108;

  /**
   * Protocol v2: the request's map epoch is older than the OSD's (the body's epoch): fetch the map
   * and resend to whoever it names.
   */
  public static final int ESTALE = 116;

  private Status() {}

  /** A short name for logs and exception messages. */
  public static String name(int status) {
    return switch (status) {
      case OK -> "OK";
      case EPERM -> "EPERM";
      case ENOENT -> "ENOENT";
      case EIO -> "EIO";
      case ENOMEM -> "ENOMEM";
      case EAGAIN -> "EAGAIN";
      case EEXIST -> "EEXIST";
      case EINVAL -> "EINVAL";
      case EFBIG -> "EFBIG";
      case ENOSPC -> "ENOSPC";
      case EROFS -> "EROFS";
      case ENAMETOOLONG -> "ENAMETOOLONG";
      case ENODATA -> "ENODATA";
      case EPROTO -> "EPROTO";
      case EBADMSG -> "EBADMSG";
      case EMSGSIZE -> "EMSGSIZE";
      case EOPNOTSUPP -> "EOPNOTSUPP";
      case ESHUTDOWN -> "ESHUTDOWN";
      case ESTALE -> "ESTALE";
      default -> "status " + status;
    };
  }
}
