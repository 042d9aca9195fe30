package io.tidestore.cluster.pg;

/**
 * What an OSD holds of a PG, as a primary asks it when peering: the head and tail of its log.
 *
 * @param head the newest entry it has (its {@code last_update})
 * @param tail the newest entry it trimmed; it has every entry after it
 */
public record PgPeerInfo(Eversion head, Eversion tail) {}
