/**
 * A shard's segments: which are free, open or used, how many live blocks each holds, which records
 * it holds (for reuse only once a durable checkpoint covers them), and reads in flight in it.
 *
 * <p>Depends only on {@code record} (the geometry in the superblock).
 */
package io.tidestore.store.segment;
