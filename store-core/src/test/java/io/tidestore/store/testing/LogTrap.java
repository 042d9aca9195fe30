package io.tidestore.store.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Keeps a fuzz target's log quiet (a warning per bad input would bury the fuzzer's output and slow
 * it) while catching what must never happen: a record at SEVERE, or one carrying an exception (a
 * connection handler logs an unexpected exception with its trace, see ConnectionErrors). Attach
 * once per fuzz-test class; {@link #check} after each input.
 */
public final class LogTrap extends Handler {
  private final List<LogRecord> bad = new ArrayList<>();
  private final Logger logger; // held: java.util.logging keeps loggers only weakly

  private LogTrap(Logger logger) {
    this.logger = logger;
  }

  /** Traps the records of {@code loggerName} and below; they no longer reach the console. */
  public static LogTrap on(String loggerName) {
    Logger logger = Logger.getLogger(loggerName);
    LogTrap trap = new LogTrap(logger);
    logger.setUseParentHandlers(false);
    logger.addHandler(trap);
    return trap;
  }

  @Override
  public synchronized void publish(LogRecord record) {
    if (record.getLevel().intValue() >= Level.SEVERE.intValue() || record.getThrown() != null) {
      bad.add(record);
    }
  }

  /** Throws if a SEVERE record or one with an exception was logged since the last check. */
  public synchronized void check() {
    if (bad.isEmpty()) {
      return;
    }
    LogRecord first = bad.getFirst();
    bad.clear();
    AssertionError e =
        new AssertionError(
            logger.getName() + " logged " + first.getLevel() + ": " + first.getMessage());
    if (first.getThrown() != null) {
      e.initCause(first.getThrown());
    }
    throw e;
  }

  @Override
  public void flush() {}

  @Override
  public void close() {}
}
