package io.tidestore.osd.ops;

import io.tidestore.store.api.StoreException;
import java.util.concurrent.CompletionException;

/**
 * A failed object op, named by a {@link Code}: the one error vocabulary of {@link ObjectOps},
 * {@link PieceIo} and the images built on them. Store failures become one here, in one place
 * ({@link #from}); each gateway maps the code to its own wire code in one place of its own (the
 * object protocol to its reply status, NBD to an errno).
 */
public class ObjectOpsException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Why an object op failed. */
  public enum Code {
    /** The object does not exist. */
    NOT_FOUND,
    /** The object exists, the attribute asked for does not. */
    NO_ATTRIBUTE,
    /** No free space for this write; reads and removes keep working. */
    NO_SPACE,
    /** The daemon's memory limit refused the memory this op needs; other ops keep going. */
    NO_MEMORY,
    /** Bad arguments: a name, offset, length or size the store refuses. */
    INVALID,
    /** The shard went read-only after an I/O error. */
    READ_ONLY,
    /** The device failed the op. */
    IO_ERROR,
    /** Data or metadata failed its check; it was not served. */
    CORRUPT,
    /** The shard or the reactor owning it was closed with the op pending. */
    CLOSED,
    /** This implementation does not offer the op. */
    UNSUPPORTED,
    /**
     * Not now: the object's PG is peering, below min_size or waiting for a newer map; the op was
     * not applied and may be sent again (a replicated op is recognised if it was).
     */
    TRY_AGAIN,
    /** The sender's cluster map is older than this OSD's: fetch the map and resend. */
    STALE_MAP
  }

  private final Code code;

  /** {@code message} is the whole message: gateways prefix it with their own wire code's name. */
  public ObjectOpsException(Code code, String message) {
    super(message);
    this.code = code;
  }

  private ObjectOpsException(Code code, String message, Throwable cause) {
    super(message, cause);
    this.code = code;
  }

  public Code code() {
    return code;
  }

  /** The store's failure as an op failure: the only place store codes are translated. */
  public static ObjectOpsException from(StoreException e) {
    Code code =
        switch (e.code()) {
          case NOT_FOUND -> Code.NOT_FOUND;
          case NO_ATTRIBUTE -> Code.NO_ATTRIBUTE;
          case NO_SPACE -> Code.NO_SPACE;
          case NO_MEMORY -> Code.NO_MEMORY;
          case INVALID -> Code.INVALID;
          case READ_ONLY -> Code.READ_ONLY;
          case IO_ERROR -> Code.IO_ERROR;
          case CORRUPT -> Code.CORRUPT;
          case CLOSED -> Code.CLOSED;
        };
    return new ObjectOpsException(code, e.getMessage(), e);
  }

  /** What a stage failed with, without the {@link CompletionException} a chain wraps it in. */
  public static Throwable unwrap(Throwable failure) {
    return failure instanceof CompletionException && failure.getCause() != null
        ? failure.getCause()
        : failure;
  }

  /** True when {@code failure} (wrapped or not) is an op failure with {@code code}. */
  public static boolean is(Throwable failure, Code code) {
    return unwrap(failure) instanceof ObjectOpsException e && e.code() == code;
  }
}
