package io.tidestore.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

class DurationOptionTest {
  private final DurationOption option = new DurationOption();

  /** Ceph's ways of writing a duration, fractions included as its float options have them. */
  @Test
  void readsCephsWaysOfWritingADuration() {
    Map<String, Duration> cases =
        Map.of(
            "500ms", Duration.ofMillis(500),
            "6", Duration.ofSeconds(6),
            "6s", Duration.ofSeconds(6),
            "10m", Duration.ofMinutes(10),
            "1h", Duration.ofHours(1),
            "0", Duration.ZERO,
            "0.1", Duration.ofMillis(100),
            "1.5s", Duration.ofMillis(1500),
            "2.5ms", Duration.ofNanos(2_500_000),
            "1.5m", Duration.ofSeconds(90));
    cases.forEach((text, expected) -> assertEquals(expected, option.convert(text), text));
  }

  @Test
  void refusesWhatIsNotADuration() {
    for (String bad : new String[] {"", "-1", "1x", ".5", "1.", "ms", "99999999999999999h"}) {
      assertThrows(TypeConversionException.class, () -> option.convert(bad), bad);
    }
  }
}
