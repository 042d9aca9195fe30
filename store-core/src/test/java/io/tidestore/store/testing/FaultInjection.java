package io.tidestore.store.testing;

import io.tidestore.store.io.IoQueue;
import io.tidestore.store.io.backend.IoQueueWrapper;
import java.nio.file.Path;

/**
 * The {@link IoQueueWrapper} provider for device faults: when the process runs with {@code
 * -Dtidestore.test.faults=CONTROL_FILE}, every queue is wrapped in a {@link FaultInjectingQueue}
 * steered by that file (see {@link FaultPlan} for its rules); otherwise queues are left alone.
 */
public final class FaultInjection implements IoQueueWrapper {
  /** The system property naming the control file. */
  public static final String PROPERTY = "tidestore.test.faults";

  @Override
  public IoQueue wrap(IoQueue queue) {
    String control = System.getProperty(PROPERTY);
    return control == null ? queue : new FaultInjectingQueue(queue, Path.of(control));
  }
}
