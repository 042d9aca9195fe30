package io.tidestore.store.api;

/**
 * How a journal record is made durable before its operations are acknowledged. Either way a record
 * is acknowledged only once it is on stable storage; the modes differ in how many cache flushes the
 * device sees.
 */
public enum JournalFlush {
  /**
   * Each record is written with RWF_DSYNC. On a device with FUA that is one write and no separate
   * flush; on a volatile write cache without FUA (virtio, most SATA) every record pays a whole
   * cache flush of its own.
   */
  RECORD_DSYNC,
  /**
   * Records are written plainly and one fdatasync covers every record whose write completed before
   * it was issued; at most one is in flight, and records that complete meanwhile wait for the next.
   * One cache flush then serves many records (group commit at the device). Needs the journal space
   * preallocated by writing (mkfs does), so that fdatasync has no file metadata to write.
   */
  SHARED_FDATASYNC,
  /**
   * What the store's layout does best, decided when the store opens ({@link #resolve}): where every
   * shard's space is in one file or device (the volume and device layouts), {@link
   * #SHARED_FDATASYNC}, and one fdatasync then covers the records of every shard on an I/O queue;
   * where each shard is a file of its own, {@link #RECORD_DSYNC}. A journal given it unresolved
   * (mounted without its store) writes each record with RWF_DSYNC.
   */
  AUTO;

  /** The daemon option's spelling: {@code auto}, {@code dsync} or {@code fdatasync}. */
  public static JournalFlush parse(String name) {
    return switch (name) {
      case "auto" -> AUTO;
      case "dsync" -> RECORD_DSYNC;
      case "fdatasync" -> SHARED_FDATASYNC;
      default ->
          throw new IllegalArgumentException(
              "journal flush must be auto, dsync or fdatasync, not '" + name + "'");
    };
  }

  /** The spelling {@link #parse} accepts. */
  public String optionName() {
    return switch (this) {
      case RECORD_DSYNC -> "dsync";
      case SHARED_FDATASYNC -> "fdatasync";
      case AUTO -> "auto";
    };
  }

  /**
   * The mode for a store whose shards' spaces share one file or device ({@code sharedSpaces}) or
   * not: {@link #AUTO} decided, any other mode as it is.
   */
  public JournalFlush resolve(boolean sharedSpaces) {
    if (this != AUTO) {
      return this;
    }
    return sharedSpaces ? SHARED_FDATASYNC : RECORD_DSYNC;
  }
}
