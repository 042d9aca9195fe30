package io.tidestore.store.io.uring;

import io.tidestore.store.io.IoQueue;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.nativeio.Libc;

/**
 * Entry point of the io_uring backend; everything else in this package is package-private. Use
 * {@code IoQueues.create}, which falls back to FileChannel when this throws.
 */
public final class IoUring {
  private IoUring() {}

  /**
   * Sets up a ring owned by the calling thread (a platform thread: SINGLE_ISSUER binds the ring to
   * the kernel task that created it, and a virtual thread changes tasks).
   *
   * @throws IoUringSetupException io_uring is unavailable or refused the setup; {@link
   *     IoUringSetupException#errno()} says why
   */
  public static IoQueue open(IoQueueConfig config, Libc libc, String reason)
      throws IoUringSetupException {
    if (Thread.currentThread().isVirtual()) {
      throw new IllegalStateException("an io_uring queue must be owned by a platform thread");
    }
    return new IoUringQueue(config, libc, new Syscalls(libc), reason);
  }
}
