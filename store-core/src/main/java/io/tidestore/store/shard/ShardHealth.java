package io.tidestore.store.shard;

import io.tidestore.store.api.StoreException;
import io.tidestore.store.io.IoOpException;

/**
 * Whether a shard may still write. After a failed durable write (journal or checkpoint) the shard
 * never retries and never pretends: it turns read-only for good (until remounted), keeps serving
 * what is durable, and says why once in the log. Owner thread only.
 */
final class ShardHealth {
  private static final System.Logger LOG = System.getLogger(ShardHealth.class.getName());

  private final int shard;
  private final String path;
  private boolean readOnly;
  private String reason;

  ShardHealth(int shard, String path) {
    this.shard = shard;
    this.path = path;
  }

  boolean readOnly() {
    return readOnly;
  }

  /** Why the shard turned read-only (the failed operation and its error), or null. */
  String reason() {
    return reason;
  }

  private void turnReadOnly(String why) {
    if (!readOnly) {
      readOnly = true;
      reason = why;
    }
  }

  /** The refusal of a mutation on a read-only shard, or null while it may write. */
  StoreException refusal() {
    return readOnly
        ? new StoreException(
            StoreException.Code.READ_ONLY,
            "shard " + shard + " is read-only after an I/O error (" + reason + "); remount it")
        : null;
  }

  void journalFailed(IoOpException cause) {
    turnReadOnly("journal write failed: " + cause.getMessage());
    LOG.log(
        System.Logger.Level.ERROR,
        "shard "
            + shard
            + " ("
            + path
            + "): journal write failed: "
            + cause.getMessage()
            + "; the batch and every later one failed, the index is unchanged; the shard is now"
            + " READ-ONLY (reads continue; remount to write again)");
  }

  void checkpointFailed(IoOpException cause) {
    turnReadOnly("checkpoint write failed: " + cause.getMessage());
    LOG.log(
        System.Logger.Level.ERROR,
        "shard "
            + shard
            + ": index checkpoint write failed: "
            + cause.getMessage()
            + "; the journal still holds every change, but segments cannot be reclaimed; the"
            + " shard is now READ-ONLY (remount to write again)");
  }

  /** A checkpoint found the file system full: the previous one stays valid, a retry follows. */
  void checkpointDeferred(IoOpException cause, long validGeneration) {
    LOG.log(
        System.Logger.Level.WARNING,
        "shard "
            + shard
            + " ("
            + path
            + "): index checkpoint not written: "
            + cause.getMessage()
            + "; checkpoint "
            + validGeneration
            + " stays valid and the journal holds every later change; retrying (writes go on"
            + " while the journal has space, segments are reclaimed once a checkpoint lands)");
  }

  void checkpointRecovered(long generation) {
    LOG.log(
        System.Logger.Level.INFO,
        "shard " + shard + ": index checkpoint " + generation + " written after the retry");
  }

  /** A block failed its crc32c on read: logged; the read fails and the data is not served. */
  void corruptionSeen(StoreException e) {
    LOG.log(System.Logger.Level.ERROR, e.getMessage() + "; the data was not served");
  }
}
