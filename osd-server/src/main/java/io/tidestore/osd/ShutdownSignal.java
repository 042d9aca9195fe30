package io.tidestore.osd;

import java.util.concurrent.CountDownLatch;
import java.util.logging.Logger;
import sun.misc.Signal;

/**
 * SIGTERM and SIGINT as a latch the daemon waits on. Replacing the JVM's own handlers is what turns
 * a stop into exit code 0 (the JVM's default is 128+15) after an orderly close, instead of shutdown
 * hooks racing the threads that still serve.
 */
public final class ShutdownSignal {
  private static final Logger LOG = Logger.getLogger(ShutdownSignal.class.getName());

  private final CountDownLatch latch = new CountDownLatch(1);

  public ShutdownSignal() {
    for (String name : new String[] {"TERM", "INT"}) {
      Signal.handle(
          new Signal(name),
          signal -> {
            if (latch.getCount() > 0) {
              LOG.info("SIG" + signal.getName() + " received, stopping");
            }
            latch.countDown();
          });
    }
  }

  /** Asks for a stop as a signal would (used by tests and the admin interface). */
  public void trigger() {
    latch.countDown();
  }

  public void await() throws InterruptedException {
    latch.await();
  }
}
