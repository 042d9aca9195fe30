package io.tidestore.cluster.pg;

/**
 * What an OSD holds of a PG, as a primary asks it when peering: the head and tail of its log, and
 * the last activation it took part in.
 *
 * @param head the newest entry it has (its {@code last_update})
 * @param tail the newest entry it trimmed; it has every entry after it
 * @param lastActive the map epoch of the newest activation of the PG this copy was a member of
 *     (Ceph's {@code last_epoch_started}), 0 for none: a wiped or new copy has 0
 */
public record PgPeerInfo(Eversion head, Eversion tail, long lastActive) {}
