/**
 * PG states as the cluster reports them (Ceph's PG stats): what each OSD tells the monitors of the
 * PGs it is primary of ({@link io.tidestore.cluster.pgstats.PgReport}, sent with every heartbeat),
 * how a monitor turns those reports and the map into one state per PG ({@link
 * io.tidestore.cluster.pgstats.PgStates}), and the summary {@code tidestore status} and {@code pg
 * dump} print ({@link io.tidestore.cluster.pgstats.PgSummary}). The reports are soft state: not in
 * the map, not replicated; a monitor that restarts knows them again after one heartbeat. Depends on
 * {@code cluster.map}, {@code cluster.placement}, {@code cluster.pg} (versions) and the JDK.
 */
package io.tidestore.cluster.pgstats;
