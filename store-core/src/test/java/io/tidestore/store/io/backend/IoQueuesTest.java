package io.tidestore.store.io.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.io.Errno;
import io.tidestore.store.io.IoBackend;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.io.uring.IoUringSetupException;
import io.tidestore.store.nativeio.Libc;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Backend selection: the decision {@link IoQueues#create} makes, including its fallbacks. */
class IoQueuesTest {
  private static final IoQueueConfig AUTO = IoQueueConfig.defaults().withCapacity(8);

  /** A ring opener whose io_uring_setup fails the way a sandbox or old kernel makes it fail. */
  private static IoQueues.RingOpener failingSetup(int errno) {
    return (config, libc, reason) -> {
      throw new IoUringSetupException("io_uring_setup(16)", errno);
    };
  }

  @Test
  void ioUringIsChosenOnThisMachine() throws Exception {
    // This machine runs a 6.x kernel with kernel.io_uring_disabled=0: a silent fallback fails here.
    try (IoQueue queue = IoQueues.create(AUTO)) {
      assertEquals(IoBackend.IO_URING, queue.backend(), queue.describe());
      assertTrue(queue.describe().contains("AUTO: io_uring_setup succeeded"), queue.describe());
    }
  }

  @Test
  void fallsBackWhenSetupIsForbidden() throws Exception {
    for (int errno : new int[] {Errno.EPERM, Errno.ENOSYS, Errno.EACCES}) {
      try (IoQueue queue = IoQueues.create(AUTO, Libc.get(), failingSetup(errno))) {
        assertEquals(IoBackend.FILE_CHANNEL, queue.backend());
        assertTrue(queue.describe().contains("io_uring unavailable"), queue.describe());
        assertTrue(queue.describe().contains(Errno.name(errno)), queue.describe());
      }
    }
  }

  @Test
  void otherSetupFailuresAreErrorsNotFallbacks() {
    IoUringSetupException e =
        assertThrows(
            IoUringSetupException.class,
            () -> IoQueues.create(AUTO, Libc.get(), failingSetup(Errno.EINVAL)));
    assertEquals(Errno.EINVAL, e.errno());
  }

  @Test
  void demandingIoUringNeverFallsBack() {
    IoQueueConfig demand = AUTO.withBackend(IoQueueConfig.Backend.IO_URING);
    IoUringSetupException e =
        assertThrows(
            IoUringSetupException.class,
            () -> IoQueues.create(demand, Libc.get(), failingSetup(Errno.EPERM)));
    assertEquals(Errno.EPERM, e.errno());
    assertThrows(
        IoUringSetupException.class,
        () -> IoQueues.create(demand, Optional.empty(), failingSetup(Errno.EPERM)));
  }

  @Test
  void fallsBackWithoutNativeAccess() throws Exception {
    IoQueues.RingOpener mustNotRun =
        (config, libc, reason) -> {
          throw new AssertionError("io_uring attempted without libc");
        };
    try (IoQueue queue = IoQueues.create(AUTO, Optional.empty(), mustNotRun)) {
      assertEquals(IoBackend.FILE_CHANNEL, queue.backend());
      assertTrue(queue.describe().contains("native access"), queue.describe());
    }
  }

  @Test
  void fileChannelCanBeConfigured() throws Exception {
    try (IoQueue queue = IoQueues.create(AUTO.withBackend(IoQueueConfig.Backend.FILE_CHANNEL))) {
      assertSame(IoBackend.FILE_CHANNEL, queue.backend());
      assertTrue(queue.describe().contains("configured"), queue.describe());
    }
  }

  @Test
  void onlyUnavailabilityErrnosFallBack() {
    assertTrue(IoQueues.unavailable(Errno.ENOSYS));
    assertTrue(IoQueues.unavailable(Errno.EPERM));
    assertTrue(IoQueues.unavailable(Errno.EACCES));
    assertFalse(IoQueues.unavailable(Errno.EINVAL));
    assertFalse(IoQueues.unavailable(Errno.ENOMEM));
  }

  @Test
  void configRejectsBadCapacity() {
    assertThrows(IllegalArgumentException.class, () -> AUTO.withCapacity(3));
    assertThrows(IllegalArgumentException.class, () -> AUTO.withCapacity(0));
    assertThrows(IllegalArgumentException.class, () -> AUTO.withCapacity(8192));
  }
}
