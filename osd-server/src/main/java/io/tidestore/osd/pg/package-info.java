/**
 * A cluster OSD's placement groups (issue 17, stop 3): primary-copy replication over protocol v2
 * ({@link io.tidestore.osd.pg.PgEngine}, which serves {@code ClusterOps}), peering at every new
 * interval, and the links to the other OSDs. Each PG lives on the thread of the store shard that
 * holds it. Depends on {@code osd.ops}, {@code osd.protocol} (the v2 codec), {@code osd.store}
 * (running work on a shard's thread), {@code client} (the v2 link), {@code cluster.*} and
 * store-core's API.
 */
package io.tidestore.osd.pg;
