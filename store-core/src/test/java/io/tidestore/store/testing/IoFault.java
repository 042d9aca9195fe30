package io.tidestore.store.testing;

import io.tidestore.store.io.Errno;

/** A device fault the test fixtures inject: an error, or a transfer cut short. */
public enum IoFault {
  /** The device failed the operation. */
  EIO,
  /** The file system under the file is full. */
  ENOSPC,
  /** The operation transferred only its first half (whole 4 KiB blocks; none of a single block). */
  SHORT;

  /** The errno a failing operation completes with (EIO for SHORT, which does not fail). */
  int errno() {
    return this == ENOSPC ? Errno.ENOSPC : Errno.EIO;
  }

  /** Bytes a SHORT transfer of {@code length} bytes moves. */
  static long shortLength(long length) {
    return length <= 4096 ? 0 : Math.max(4096, (length / 2) & ~4095L);
  }
}
