/**
 * Index checkpoints: the encoding of a whole index as of one applied record, so a mount replays
 * only what came after it, with a header that says where replay continues. Decoding verifies the
 * crc32c of header and body and fails with {@code CorruptRecordException} on anything else.
 *
 * <p>Depends on {@code index}, {@code record} and {@code api}.
 */
package io.tidestore.store.checkpoint;
