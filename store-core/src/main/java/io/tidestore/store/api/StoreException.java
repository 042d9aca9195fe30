package io.tidestore.store.api;

import java.io.IOException;

/** Why a store operation failed, as a {@link Code} a client protocol can map to an errno. */
public class StoreException extends IOException {
  private static final long serialVersionUID = 1L;

  /** Failure kinds; each names the POSIX errno a protocol should report. */
  public enum Code {
    /** ENOENT: the object does not exist. */
    NOT_FOUND,
    /** ENODATA: the object exists, the attribute asked for does not. */
    NO_ATTRIBUTE,
    /** ENOSPC: the shard has no free space for this write; reads and removes keep working. */
    NO_SPACE,
    /** EINVAL / EFBIG: bad arguments (offset, length, name, size limit). */
    INVALID,
    /** EROFS: the shard went read-only after an I/O error; remount to write again. */
    READ_ONLY,
    /** EIO: the device failed the operation. */
    IO_ERROR,
    /** EIO: data failed its checksum; it was not served. */
    CORRUPT,
    /**
     * ENOMEM: {@code --memory-limit} refused the memory this operation needs (a journal buffer, or
     * index room for a new object); the daemon and other operations keep going.
     */
    NO_MEMORY,
    /** ESHUTDOWN: the shard was closed with the operation pending. */
    CLOSED
  }

  private final Code code;

  public StoreException(Code code, String message) {
    super(code + ": " + message);
    this.code = code;
  }

  public StoreException(Code code, String message, Throwable cause) {
    super(code + ": " + message, cause);
    this.code = code;
  }

  public Code code() {
    return code;
  }
}
