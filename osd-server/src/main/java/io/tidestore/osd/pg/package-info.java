/**
 * A cluster OSD's placement groups (issue 17): primary-copy replication over protocol v2 ({@link
 * io.tidestore.osd.pg.PgEngine}, which serves {@code ClusterOps}), peering at every new interval,
 * recovery and backfill, deep scrub and repair, and the links to the other OSDs. Each PG lives on
 * the thread of the store shard that holds it. Depends on {@code osd.ops}, {@code osd.protocol}
 * (the v2 codec), {@code osd.store} (running work on a shard's thread), {@code client} (the v2
 * link), {@code cluster.*}, store-core's API and Micrometer (deep scrub's counters).
 */
package io.tidestore.osd.pg;
