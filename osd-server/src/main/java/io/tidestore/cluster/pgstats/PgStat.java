package io.tidestore.cluster.pgstats;

import io.tidestore.cluster.pg.Eversion;
import io.tidestore.cluster.placement.PgId;

/**
 * One PG as its primary reports it.
 *
 * @param pg the PG
 * @param state Ceph's state words joined by '+', e.g. {@code active+clean}
 * @param interval the interval the state belongs to ({@link PgInterval#key})
 * @param head the newest entry of the primary's PG log
 */
public record PgStat(PgId pg, String state, String interval, Eversion head) {}
