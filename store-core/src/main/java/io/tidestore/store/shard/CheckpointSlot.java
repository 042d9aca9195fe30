package io.tidestore.store.shard;

import io.tidestore.store.io.IoFile;

/**
 * An opened checkpoint slot: where its image starts in its file and how large an image fits.
 *
 * @param file the opened file or device; null when the slot's own file does not exist (offline
 *     checks create nothing)
 */
record CheckpointSlot(IoFile file, long offset, long capacity) {}
