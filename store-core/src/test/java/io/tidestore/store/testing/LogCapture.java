package io.tidestore.store.testing;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Catches what one class logs while an action runs, for tests that check what a mount or a shutdown
 * says (where replay stopped, and why). The records still reach the console as well.
 */
public final class LogCapture extends Handler {
  private final List<LogRecord> records = new ArrayList<>();

  private LogCapture() {}

  /** An action that may fail with an I/O error (a mount, a remount). */
  @FunctionalInterface
  public interface Action {
    void run() throws IOException;
  }

  /** Runs {@code action}; returns the records {@code source}'s logger published meanwhile. */
  public static List<LogRecord> during(Class<?> source, Action action) throws IOException {
    Logger logger = Logger.getLogger(source.getName());
    LogCapture capture = new LogCapture();
    logger.addHandler(capture);
    try {
      action.run();
    } finally {
      logger.removeHandler(capture);
    }
    synchronized (capture) {
      return List.copyOf(capture.records);
    }
  }

  @Override
  public synchronized void publish(LogRecord record) {
    records.add(record);
  }

  @Override
  public void flush() {}

  @Override
  public void close() {}
}
