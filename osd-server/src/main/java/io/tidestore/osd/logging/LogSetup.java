package io.tidestore.osd.logging;

import java.io.PrintStream;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.StreamHandler;

/**
 * Logging to stdout, one line per record, so systemd's journal (or a terminal) gets everything;
 * Netty logs through java.util.logging too when no SLF4J is on the class path.
 */
public final class LogSetup {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  /**
   * chronicle-core (the index's off-heap memory) announces at INFO, once, the jar it was loaded
   * from; its warnings stay. Held here: JUL keeps only weak references to loggers, and a collected
   * one loses its level.
   */
  private static final Logger CHRONICLE_JVM = Logger.getLogger("net.openhft.chronicle.core.Jvm");

  private LogSetup() {}

  /** Routes the root logger to stdout with {@link OneLine} formatting; idempotent. */
  public static void install() {
    Logger root = Logger.getLogger("");
    for (Handler handler : root.getHandlers()) {
      root.removeHandler(handler);
    }
    Handler stdout = new StdoutHandler(System.out, new OneLine());
    stdout.setLevel(Level.ALL);
    root.addHandler(stdout);
    root.setLevel(Level.INFO);
    // Netty is chatty at FINE about its internals; keep its warnings.
    Logger.getLogger("io.netty").setLevel(Level.INFO);
    CHRONICLE_JVM.setLevel(Level.WARNING);
  }

  /** {@code 2026-11-22T03:30:00.123Z INFO [thread] logger: message}. */
  static final class OneLine extends Formatter {
    @Override
    public String format(LogRecord record) {
      StringBuilder line = new StringBuilder(160);
      line.append(TIME.format(Instant.ofEpochMilli(record.getMillis())))
          .append(' ')
          .append(String.format("%-5s", record.getLevel().getName()))
          .append(" [")
          .append(Thread.currentThread().getName())
          .append("] ")
          .append(shortName(record.getLoggerName()))
          .append(": ")
          .append(formatMessage(record))
          .append(System.lineSeparator());
      if (record.getThrown() != null) {
        var trace = new java.io.StringWriter();
        record.getThrown().printStackTrace(new java.io.PrintWriter(trace));
        line.append(trace);
      }
      return line.toString();
    }

    private static String shortName(String name) {
      if (name == null) {
        return "";
      }
      int dot = name.lastIndexOf('.');
      return dot < 0 ? name : name.substring(dot + 1);
    }
  }

  /**
   * A handler on stdout, flushed per record. Not a ConsoleHandler re-pointed at stdout: JUL's
   * setOutputStream closes the previous stream, which would close System.err for everyone.
   */
  static final class StdoutHandler extends StreamHandler {
    StdoutHandler(PrintStream out, Formatter formatter) {
      super(out, formatter);
    }

    @Override
    public synchronized void publish(LogRecord record) {
      super.publish(record);
      flush();
    }

    /** Flushes only: stdout outlives logging. */
    @Override
    public synchronized void close() {
      flush();
    }
  }
}
