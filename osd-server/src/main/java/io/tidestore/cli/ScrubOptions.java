package io.tidestore.cli;

import io.tidestore.bench.job.ByteSize;
import io.tidestore.osd.ScrubSettings;
import java.util.Locale;
import picocli.CommandLine.Option;

/** The daemon's online scrub flags (docs/reliability.md "Scrub"). */
final class ScrubOptions {
  @Option(
      names = "--scrub-interval",
      paramLabel = "DURATION",
      description =
          "Time between scheduled scrub passes, each checking every stored block's crc32c and the"
              + " index against the log (e.g. 7d, 12h, 30m, 90s; 0 = none scheduled; `tidestore"
              + " admin scrub` starts one any time). Default: ${DEFAULT-VALUE}.")
  String interval = "7d";

  @Option(
      names = "--scrub-rate",
      paramLabel = "BYTES",
      description =
          "Bytes per second the scrub may read, over the whole daemon (e.g. 16m); its reads go"
              + " behind every client read. In a cluster (--mon) each deep scrub this OSD leads"
              + " reads its PG's objects at this rate too. Default: ${DEFAULT-VALUE}.")
  String rate = "16m";

  /**
   * @throws IllegalArgumentException with the option's name, for a bad value
   */
  ScrubSettings settings() {
    long nanos = durationNanos(interval, "--scrub-interval");
    long bytes;
    try {
      bytes = ByteSize.parse(rate);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "Invalid value for option '--scrub-rate': " + e.getMessage(), e);
    }
    if (bytes < 4096) {
      throw new IllegalArgumentException(
          "Invalid value for option '--scrub-rate': " + rate + " (at least 4096 bytes/s)");
    }
    return new ScrubSettings(nanos, bytes);
  }

  /** {@code 0}, or a count followed by s, m, h or d; a bad one is refused naming {@code option}. */
  static long durationNanos(String text, String option) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (t.equals("0")) {
      return 0;
    }
    long unit =
        switch (t.isEmpty() ? ' ' : t.charAt(t.length() - 1)) {
          case 's' -> 1L;
          case 'm' -> 60L;
          case 'h' -> 3600L;
          case 'd' -> 86_400L;
          default -> -1L;
        };
    long count;
    try {
      count = unit < 0 ? -1 : Long.parseLong(t.substring(0, t.length() - 1));
    } catch (NumberFormatException e) {
      count = -1;
    }
    if (count < 0 || count > Long.MAX_VALUE / 1_000_000_000L / unit) {
      throw new IllegalArgumentException(
          "Invalid value for option '"
              + option
              + "': '"
              + text
              + "' (0, or a number followed by s, m, h or d)");
    }
    return count * unit * 1_000_000_000L;
  }
}
