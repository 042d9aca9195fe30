/**
 * A placement group's state on one OSD (issue 17, stop 2b): its log of operations ({@link
 * io.tidestore.cluster.pg.PgLog}), the version of each of its objects, and where both live in the
 * store ({@link io.tidestore.cluster.pg.PgMeta}). An operation's data, its log entry and the
 * object's new version commit in one store transaction, so a crash never leaves a replica claiming
 * a version it does not hold. Depends on {@code cluster.placement} (PG ids), {@code store.api} and
 * the JDK.
 */
package io.tidestore.cluster.pg;
