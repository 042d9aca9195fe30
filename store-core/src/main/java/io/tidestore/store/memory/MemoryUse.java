package io.tidestore.store.memory;

/** What a reservation against the {@link MemoryBudget} is for; each is a separate gauge. */
public enum MemoryUse {
  /** Extent cache slabs. */
  CACHE,
  /** I/O buffers: journal batches, read bounce buffers, rings. */
  IO_BUFFERS,
  /** The object index and its checkpoints. */
  INDEX
}
