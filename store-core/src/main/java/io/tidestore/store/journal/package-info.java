/**
 * A shard's journal with group commit: mutations are staged into the open batch, sealed into
 * numbered records by the rules in {@link io.tidestore.store.journal.Journal}, written durably
 * (RWF_DSYNC, or plain writes covered by a shared fdatasync: one for all the shards of an I/O queue
 * when their spaces share one file or device, else lined up across them), and applied strictly in
 * sequence, acknowledgements included. It knows records, not objects: what a record means to the
 * index is the shard's business.
 *
 * <p>Depends on {@code record}, {@code segment}, {@code io}, {@code memory} and {@code api}.
 */
package io.tidestore.store.journal;
