package io.tidestore.store.memory;

/** What a reservation against the {@link MemoryBudget} is for; each is a separate gauge. */
public enum MemoryUse {
  /** Extent cache slabs. */
  CACHE,
  /** I/O buffers: journal batches, read buffers, cleaner and replay buffers. */
  IO_BUFFERS,
  /** The object index (a heap estimate, reserved in steps) and its checkpoint images. */
  INDEX
}
