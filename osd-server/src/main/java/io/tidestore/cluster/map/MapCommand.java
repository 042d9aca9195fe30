package io.tidestore.cluster.map;

import java.util.SortedMap;
import java.util.UUID;

/**
 * A change to the map, as the monitors replicate it in their log. Commands carry every input they
 * need, the proposer's clock included, so that applying one is deterministic on every monitor.
 */
public sealed interface MapCommand {

  /**
   * Creates the cluster once: its fsid and pool {@code rbd} (size 3, min_size 2, pg_num 64). A
   * no-op on an initialized map, so every new leader may propose it.
   */
  record Init(UUID fsid, long nowMillis, FailureDomain defaultFailureDomain)
      implements MapCommand {}

  /**
   * An OSD starts (or finds itself marked down while alive): register it, allocate its id if it has
   * none, mark it up and in.
   *
   * @param requestedId the id it names ({@code --id}, or the one stored in its data directory), or
   *     -1 for "allocate one"
   */
  record Boot(
      int requestedId,
      UUID uuid,
      String host,
      double weight,
      String address,
      String adminAddress,
      long nowMillis)
      implements MapCommand {}

  /**
   * The leader's failure detector: these OSDs sent no heartbeat within the grace. Each is marked
   * down only if it is still the incarnation that was seen ({@code upFrom} by id): a reboot that
   * was applied in between wins.
   */
  record MarkDown(SortedMap<Integer, Long> upFromById, long nowMillis) implements MapCommand {}

  /** These OSDs have been down longer than the down-out interval: mark them out if still down. */
  record MarkOut(SortedMap<Integer, Long> upFromById) implements MapCommand {}

  /** {@code pool create}; a null failure domain means the cluster's default. */
  record PoolCreate(String name, int size, int minSize, int pgNum, FailureDomain failureDomain)
      implements MapCommand {}

  /** {@code pool rm}. */
  record PoolRemove(String name) implements MapCommand {}
}
