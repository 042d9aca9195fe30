package io.tidestore.osd.store;

import io.tidestore.osd.protocol.OpException;
import io.tidestore.osd.protocol.Status;
import io.tidestore.store.api.StoreException;

/** Maps store failures to protocol statuses (the errno each {@link StoreException.Code} names). */
public final class StoreErrors {
  private StoreErrors() {}

  public static OpException toOp(StoreException e) {
    int status =
        switch (e.code()) {
          case NOT_FOUND -> Status.ENOENT;
          case NO_ATTRIBUTE -> Status.ENODATA;
          case NO_SPACE -> Status.ENOSPC;
          case NO_MEMORY -> Status.ENOMEM;
          case INVALID -> Status.EINVAL;
          case READ_ONLY -> Status.EROFS;
          case IO_ERROR, CORRUPT -> Status.EIO;
          case CLOSED -> Status.ESHUTDOWN;
        };
    return new OpException(status, e.getMessage());
  }
}
