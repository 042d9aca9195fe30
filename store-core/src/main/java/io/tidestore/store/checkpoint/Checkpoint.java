package io.tidestore.store.checkpoint;

/**
 * A decoded checkpoint header: which records it covers and where replay continues.
 *
 * @param generation the checkpoint's number (higher is newer)
 * @param lastSeq every record up to this sequence is reflected
 * @param epoch the mount epoch of record {@code lastSeq}
 * @param nextSegment segment where record {@code lastSeq + 1} was to go, or -1
 * @param nextOffset byte offset in that segment
 * @param nextObjectId the next object id to hand out
 * @param bodyLength bytes of the body
 * @param objectCount objects in the body
 */
public record Checkpoint(
    long generation,
    long lastSeq,
    long epoch,
    int nextSegment,
    long nextOffset,
    long nextObjectId,
    long bodyLength,
    long objectCount) {

  /** The state of a store no checkpoint was ever written for. */
  public static final Checkpoint EMPTY = new Checkpoint(0, 0, 0, -1, 0, 1, 0, 0);
}
