package io.tidestore.store.io;

import java.nio.file.Path;

/**
 * A file or block device opened by an {@link IoQueue} for direct I/O. It belongs to that queue and
 * is closed with it (or earlier by {@link #close()}, on the owner thread, with no operation on it
 * in flight).
 */
public interface IoFile extends AutoCloseable {
  /** How to open. */
  enum Mode {
    /** Read only; the file must exist. */
    READ,
    /** Read and write; the file must exist. */
    READ_WRITE,
    /** Read and write, created empty if missing. */
    CREATE
  }

  Path path();

  /** Current size in bytes (for a block device, its capacity). */
  long size();

  /** Whether this is a block device rather than a regular file. */
  boolean isBlockDevice();

  @Override
  void close();
}
