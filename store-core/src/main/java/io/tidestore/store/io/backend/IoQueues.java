package io.tidestore.store.io.backend;

import io.tidestore.store.io.Errno;
import io.tidestore.store.io.FileChannelQueue;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.io.uring.IoUring;
import io.tidestore.store.io.uring.IoUringSetupException;
import io.tidestore.store.nativeio.Libc;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Builds the {@link IoQueue} a thread will own: io_uring where the kernel and the JVM allow it,
 * else the FileChannel backend, with the reason in {@link IoQueue#describe()} (and logged).
 *
 * <p>The decision: {@link IoQueueConfig.Backend#FILE_CHANNEL} asks for the fallback; without native
 * access ({@link Libc#get()} empty) there is no io_uring; io_uring_setup failing with ENOSYS (no
 * kernel support), EPERM (kernel.io_uring_disabled, seccomp) or EACCES means io_uring is
 * unavailable here; any other failure is a real error and is thrown, as is any failure when the
 * config demands {@link IoQueueConfig.Backend#IO_URING}.
 */
public final class IoQueues {
  private static final System.Logger LOG = System.getLogger(IoQueues.class.getName());

  /** Opens an io_uring queue; the seam through which the selection test makes setup fail. */
  @FunctionalInterface
  interface RingOpener {
    IoQueue open(IoQueueConfig config, Libc libc, String reason) throws IoUringSetupException;
  }

  /** The {@link IoQueueWrapper}s on the class path: none in the shipped jar. */
  private static final List<IoQueueWrapper> WRAPPERS =
      ServiceLoader.load(IoQueueWrapper.class).stream().map(ServiceLoader.Provider::get).toList();

  private IoQueues() {}

  /** A queue owned by the calling thread. */
  public static IoQueue create(IoQueueConfig config) throws IoUringSetupException {
    return create(config, Libc.get(), IoUring::open);
  }

  static IoQueue create(IoQueueConfig config, Optional<Libc> libc, RingOpener rings)
      throws IoUringSetupException {
    IoQueue queue = choose(config, libc, rings);
    LOG.log(System.Logger.Level.INFO, "I/O queue: {0}", queue.describe());
    return wrap(queue, WRAPPERS);
  }

  /** Lets each wrapper wrap {@code queue} in turn (a test fixture's seam; see IoQueueWrapper). */
  static IoQueue wrap(IoQueue queue, List<IoQueueWrapper> wrappers) {
    for (IoQueueWrapper w : wrappers) {
      IoQueue wrapped = w.wrap(queue);
      if (wrapped != queue) {
        LOG.log(
            System.Logger.Level.WARNING,
            "I/O queue wrapped by the test fixture {0}: {1}",
            w.getClass().getName(),
            wrapped.describe());
      }
      queue = wrapped;
    }
    return queue;
  }

  private static IoQueue choose(IoQueueConfig config, Optional<Libc> libc, RingOpener rings)
      throws IoUringSetupException {
    if (config.backend() == IoQueueConfig.Backend.FILE_CHANNEL) {
      return FileChannelQueue.open(config, "configured backend FILE_CHANNEL");
    }
    if (libc.isEmpty()) {
      String why = "io_uring needs native access: " + Libc.unavailableReason().orElse("denied");
      if (config.backend() == IoQueueConfig.Backend.IO_URING) {
        throw new IoUringSetupException(why, Errno.EPERM);
      }
      return FileChannelQueue.open(config, why);
    }
    String chosen =
        config.backend() == IoQueueConfig.Backend.IO_URING
            ? "configured backend IO_URING"
            : "AUTO: io_uring_setup succeeded";
    try {
      return rings.open(config, libc.get(), chosen);
    } catch (IoUringSetupException e) {
      if (config.backend() == IoQueueConfig.Backend.AUTO && unavailable(e.errno())) {
        return FileChannelQueue.open(config, "io_uring unavailable: " + e.getMessage());
      }
      throw e;
    }
  }

  /** The errnos that mean "this kernel or sandbox offers no io_uring", not a broken request. */
  static boolean unavailable(int errno) {
    return errno == Errno.ENOSYS || errno == Errno.EPERM || errno == Errno.EACCES;
  }
}
