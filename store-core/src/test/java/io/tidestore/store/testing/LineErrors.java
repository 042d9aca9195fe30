package io.tidestore.store.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * For the fuzz targets of line-oriented files (settings, auth, traces): a refusal must say where,
 * as {@code SOURCE:LINE: reason} with a line the file has, so that whoever wrote the file can find
 * the mistake; a message without the line, or with one past the end, fails the input.
 */
public final class LineErrors {
  private static final Pattern LINE = Pattern.compile(":(\\d+): ");

  private LineErrors() {}

  /** The lines of {@code bytes} as BufferedReader.readLine ends them: \n, \r or \r\n. */
  public static long lineCount(byte[] bytes) {
    long lines = 0;
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == '\n'
          || (bytes[i] == '\r' && (i + 1 == bytes.length || bytes[i + 1] != '\n'))) {
        lines++;
      }
    }
    boolean unended =
        bytes.length > 0 && bytes[bytes.length - 1] != '\n' && bytes[bytes.length - 1] != '\r';
    return lines + (unended ? 1 : 0);
  }

  /** Asserts that {@code message} starts with {@code source:LINE: } and 1 <= LINE <= lines. */
  public static void assertNamesLine(String message, String source, long lines) {
    assertTrue(message.startsWith(source + ":"), "no file in: " + message);
    Matcher m = LINE.matcher(message).region(source.length(), message.length());
    assertTrue(m.lookingAt(), "no line in: " + message);
    long line = Long.parseLong(m.group(1));
    assertTrue(line >= 1 && line <= lines, "line " + line + " of " + lines + ": " + message);
  }
}
