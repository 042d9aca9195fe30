package io.tidestore.osd.ops;

import io.tidestore.cluster.pg.PgLogEntry;
import io.tidestore.cluster.placement.PgId;

/**
 * A primary's replicated op, as a replica applies it: the mutation, with the log entry the primary
 * ordered it under, in one transaction.
 *
 * @param epoch the primary's map epoch
 * @param pg the PG
 * @param entry the log entry (its object, version, prior version and request id)
 * @param mutation the change (the replica releases it)
 */
public record RepOp(long epoch, PgId pg, PgLogEntry entry, Mutation mutation) {}
