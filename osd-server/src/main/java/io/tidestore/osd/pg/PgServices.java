package io.tidestore.osd.pg;

import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

/**
 * What every shard's PGs share: this OSD's id, the newest map, the links to the other OSDs, a timer
 * for retries, a way to ask for a newer map than the one held, the PG metrics and deep scrub's
 * slot.
 *
 * @param self this OSD's id
 * @param map the newest map this OSD has
 * @param peers the links to the other OSDs
 * @param timer for retries (its tasks hop to the shard's thread themselves)
 * @param newerMap asked when a message names an epoch newer than this OSD's map
 * @param metrics what the PGs count
 * @param shardCount how many shards the OSD has (a PG lives in {@code PgMeta.shardOf} of it)
 * @param scrubs the OSD's deep scrub slot, schedule and counters
 * @param recoverySlots the OSD's throttle of recovery while PGs serve
 * @param history the monitors' record of each PG's newest activation
 */
record PgServices(
    int self,
    Supplier<MapView> map,
    PeerLinks peers,
    ScheduledExecutorService timer,
    LongConsumer newerMap,
    PgMetrics metrics,
    int shardCount,
    ScrubSlot scrubs,
    RecoverySlots recoverySlots,
    PgHistory history) {}
