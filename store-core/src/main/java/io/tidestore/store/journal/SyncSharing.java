package io.tidestore.store.journal;

/**
 * How the journals of the shards on one I/O queue share their fdatasyncs in {@code
 * SHARED_FDATASYNC} mode. Which one a store uses depends on where its shards live:
 *
 * <ul>
 *   <li>{@link SyncRound}: each shard is a file of its own, so each journal needs its own
 *       fdatasync; they are issued together in rounds so that the block layer merges their device
 *       flushes.
 *   <li>{@link GroupFlush}: every shard is a region of one file or device, so one fdatasync makes
 *       every completed write of every shard on the queue durable: the shards commit as a group, as
 *       one journal stream per reactor would.
 * </ul>
 *
 * One instance per I/O queue, used by that queue's owner thread only.
 */
public sealed interface SyncSharing permits SyncRound, GroupFlush {
  /** fdatasyncs (or rounds of them) started so far. */
  long rounds();
}
