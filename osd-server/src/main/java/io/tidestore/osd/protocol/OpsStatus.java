package io.tidestore.osd.protocol;

import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.ops.ObjectOpsException.Code;

/**
 * The object protocol's one mapping between op failures ({@link ObjectOpsException.Code}) and reply
 * statuses ({@link Status}), both ways: the server replies {@link #of} a failed op's code, and a
 * client that serves {@link io.tidestore.osd.ops.ObjectOps} over the protocol turns a status back
 * into the code ({@link #codeOf}). Stateless.
 */
public final class OpsStatus {
  private OpsStatus() {}

  /** The status a failed op with {@code code} is replied with. */
  public static int of(Code code) {
    return switch (code) {
      case NOT_FOUND -> Status.ENOENT;
      case NO_ATTRIBUTE -> Status.ENODATA;
      case NO_SPACE -> Status.ENOSPC;
      case NO_MEMORY -> Status.ENOMEM;
      case INVALID -> Status.EINVAL;
      case READ_ONLY -> Status.EROFS;
      case IO_ERROR, CORRUPT -> Status.EIO;
      case CLOSED -> Status.ESHUTDOWN;
      case UNSUPPORTED -> Status.EOPNOTSUPP;
      case TRY_AGAIN -> Status.EAGAIN;
      case STALE_MAP -> Status.ESTALE;
    };
  }

  /**
   * The op failure a reply {@code status} names, or null for a status no op failure maps to (the
   * protocol's own: EPROTO, EMSGSIZE, ...). EIO reads back as IO_ERROR.
   */
  public static Code codeOf(int status) {
    return switch (status) {
      case Status.ENOENT -> Code.NOT_FOUND;
      case Status.ENODATA -> Code.NO_ATTRIBUTE;
      case Status.ENOSPC -> Code.NO_SPACE;
      case Status.ENOMEM -> Code.NO_MEMORY;
      case Status.EINVAL -> Code.INVALID;
      case Status.EROFS -> Code.READ_ONLY;
      case Status.EIO -> Code.IO_ERROR;
      case Status.ESHUTDOWN -> Code.CLOSED;
      case Status.EOPNOTSUPP -> Code.UNSUPPORTED;
      case Status.EAGAIN -> Code.TRY_AGAIN;
      case Status.ESTALE -> Code.STALE_MAP;
      default -> null;
    };
  }

  /** The reply message of a failed op: the status's name, then the op's message. */
  static String message(int status, ObjectOpsException e) {
    return Status.name(status) + ": " + e.getMessage();
  }
}
