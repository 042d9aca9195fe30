package io.tidestore.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Durations as Ceph's options write them: {@code 500ms}, {@code 6s}, {@code 10m}, {@code 1h}; a
 * bare number is seconds.
 */
final class DurationOption implements ITypeConverter<Duration> {
  private static final Pattern FORM = Pattern.compile("(\\d+)(ms|s|m|h)?");

  @Override
  public Duration convert(String value) {
    Matcher m = FORM.matcher(value.trim());
    if (!m.matches()) {
      throw new TypeConversionException(
          "'" + value + "' is not a duration (e.g. 500ms, 6s, 10m, 1h)");
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "s" : m.group(2);
    return switch (unit) {
      case "ms" -> Duration.ofMillis(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      default -> Duration.ofSeconds(n);
    };
  }
}
