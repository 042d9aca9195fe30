package io.tidestore.store.cache.sim;

import java.io.IOException;

/** A trace line that cannot be read; the message names the file and the 1-based line number. */
public final class TraceFormatException extends IOException {
  private static final long serialVersionUID = 1L;

  private final long line;

  TraceFormatException(String source, long line, String problem, String text) {
    super(source + ":" + line + ": " + problem + ": '" + abbreviate(text) + "'");
    this.line = line;
  }

  /** The 1-based line number of the bad line. */
  public long line() {
    return line;
  }

  private static String abbreviate(String text) {
    return text.length() > 80 ? text.substring(0, 77) + "..." : text;
  }
}
