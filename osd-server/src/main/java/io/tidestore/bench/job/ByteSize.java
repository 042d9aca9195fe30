package io.tidestore.bench.job;

import java.util.Locale;

/**
 * fio's size syntax: a number with an optional k/m/g/t/p suffix, optionally followed by {@code
 * i}/{@code b}/{@code ib}; multipliers are powers of 1024 as with fio's default {@code
 * kb_base=1024} ("4k" = 4096).
 */
public final class ByteSize {
  private ByteSize() {}

  /** Parses {@code text}; throws {@link IllegalArgumentException} naming what was wrong. */
  public static long parse(String text) {
    String s = text.strip().toLowerCase(Locale.ROOT);
    int end = 0;
    while (end < s.length() && isDigit(s.charAt(end))) {
      end++;
    }
    if (end == 0) {
      throw new IllegalArgumentException("'" + text + "' is not a size (e.g. 4k, 64k, 2g)");
    }
    long number;
    try {
      number = Long.parseLong(s.substring(0, end));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' is too large", e);
    }
    String suffix = s.substring(end);
    if (suffix.endsWith("ib")) {
      suffix = suffix.substring(0, suffix.length() - 2);
    } else if (suffix.endsWith("b") || suffix.endsWith("i")) {
      suffix = suffix.substring(0, suffix.length() - 1);
    }
    int shift =
        switch (suffix) {
          case "" -> 0;
          case "k" -> 10;
          case "m" -> 20;
          case "g" -> 30;
          case "t" -> 40;
          case "p" -> 50;
          default ->
              throw new IllegalArgumentException(
                  "'" + text + "' has an unknown size suffix (use k, m, g, t or p)");
        };
    if (shift > 0 && number > (Long.MAX_VALUE >> shift)) {
      throw new IllegalArgumentException("'" + text + "' is too large");
    }
    return number << shift;
  }

  /**
   * An ASCII digit: fio reads only these, and job files are passed on to fio as written ({@code
   * Character.isDigit} and {@code Long.parseLong} also take other scripts' digits).
   */
  static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  /** Formats bytes the way fio's job files write them, e.g. 65536 -> "64k". */
  public static String format(long bytes) {
    String[] suffixes = {"", "k", "m", "g", "t", "p"};
    int i = 0;
    long value = bytes;
    while (i < suffixes.length - 1 && value != 0 && value % 1024 == 0) {
      value /= 1024;
      i++;
    }
    return value + suffixes[i];
  }
}
