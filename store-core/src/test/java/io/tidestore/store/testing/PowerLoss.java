package io.tidestore.store.testing;

import io.tidestore.store.io.IoQueue;
import io.tidestore.store.io.backend.IoQueueWrapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * The {@link IoQueueWrapper} provider for power loss: when the process runs with {@code
 * -Dtidestore.test.powerloss=UNDO_LOG_DIR}, every queue is wrapped in an {@link UndoLoggingQueue}
 * writing the process's {@link UndoLog} in that directory, which {@link PowerCut} applies after the
 * process was killed; otherwise queues are left alone. The daemon logs a WARNING naming this class
 * for every queue it wraps ({@code IoQueues}).
 */
public final class PowerLoss implements IoQueueWrapper {
  /** The system property naming the undo log's directory. */
  public static final String PROPERTY = "tidestore.test.powerloss";

  private static UndoLog processLog;

  @Override
  public IoQueue wrap(IoQueue queue) {
    String dir = System.getProperty(PROPERTY);
    return dir == null ? queue : wrap(queue, processLog(Path.of(dir)));
  }

  /** {@code queue} with its writes recorded in {@code log}. */
  public static IoQueue wrap(IoQueue queue, UndoLog log) {
    return new UndoLoggingQueue(queue, log);
  }

  private static synchronized UndoLog processLog(Path dir) {
    if (processLog == null) {
      try {
        processLog = UndoLog.create(dir);
      } catch (IOException e) {
        throw new UncheckedIOException("power-loss fixture: " + e.getMessage(), e);
      }
    }
    return processLog;
  }
}
