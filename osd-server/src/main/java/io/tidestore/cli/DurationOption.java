package io.tidestore.cli;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Durations as Ceph's options write them: {@code 500ms}, {@code 6s}, {@code 10m}, {@code 1h}; a
 * bare number is seconds, and a number may have a fraction ({@code 0.1}, {@code 1.5s}), as Ceph's
 * float options such as {@code osd_recovery_sleep} do.
 */
final class DurationOption implements ITypeConverter<Duration> {
  private static final Pattern FORM = Pattern.compile("(\\d{1,18}(?:\\.\\d{1,9})?)(ms|s|m|h)?");

  @Override
  public Duration convert(String value) {
    Matcher m = FORM.matcher(value.trim());
    if (!m.matches()) {
      throw new TypeConversionException(
          "'" + value + "' is not a duration (e.g. 500ms, 0.1s, 6s, 10m, 1h)");
    }
    String unit = m.group(2) == null ? "s" : m.group(2);
    long unitNanos =
        switch (unit) {
          case "ms" -> 1_000_000L;
          case "m" -> 60_000_000_000L;
          case "h" -> 3_600_000_000_000L;
          default -> 1_000_000_000L;
        };
    try {
      return Duration.ofNanos(
          new BigDecimal(m.group(1))
              .multiply(BigDecimal.valueOf(unitNanos))
              .setScale(0, RoundingMode.HALF_UP)
              .longValueExact());
    } catch (ArithmeticException e) {
      throw new TypeConversionException("'" + value + "' is too long a duration");
    }
  }
}
