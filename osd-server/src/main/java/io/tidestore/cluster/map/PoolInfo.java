package io.tidestore.cluster.map;

/**
 * One pool: its PGs are {@code id.0 .. id.(pgNum-1)} (Ceph's PGID, POOL.HEXSEED).
 *
 * @param id the pool number, allocated once and never reused
 * @param name unique among the pools
 * @param size replicas of every object
 * @param minSize replicas below which a PG takes no writes
 * @param pgNum placement groups
 * @param failureDomain what two replicas of one PG must not share
 * @param createdEpoch the epoch that created it
 */
public record PoolInfo(
    int id,
    String name,
    int size,
    int minSize,
    int pgNum,
    FailureDomain failureDomain,
    long createdEpoch) {

  /** The most PGs one pool may have (Ceph's mon_max_pool_pg_num). */
  public static final int MAX_PG_NUM = 65536;

  /** The most replicas a pool may ask for (Ceph's osd_pool_default_size ceiling is 10). */
  public static final int MAX_SIZE = 10;
}
