/**
 * The on-disk formats of a shard, as byte layouts with named offsets ({@code *Descriptor} classes):
 * the superblock, journal records (header, metadata deltas, data blocks) and the 4 KiB block with
 * its crc32c. Encoders and decoders here only parse and check bytes; a decoder meets bad input with
 * {@link io.tidestore.store.record.CorruptRecordException}, never another exception. docs/format.md
 * describes the same layouts.
 *
 * <p>Depends only on {@code api} (the block size, object keys).
 */
package io.tidestore.store.record;
