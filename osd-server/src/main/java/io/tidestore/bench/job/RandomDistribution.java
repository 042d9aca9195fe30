package io.tidestore.bench.job;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * fio's {@code random_distribution}: {@code random}, {@code zipf:THETA}, {@code normal:DEV}
 * (deviation as a percentage of the range, 0-100, as fio reads it) or {@code
 * zoned:ACCESS%/RANGE%:...} whose access and range percentages each sum to 100.
 *
 * @param kind the model
 * @param parameter zipf's theta or normal's deviation (percent); 0 for the others
 * @param zones for zoned, the (access %, range %) pairs in order; empty otherwise
 */
public record RandomDistribution(Kind kind, double parameter, List<Zone> zones) {

  /** The models fio and {@code tidestore bench} share. */
  public enum Kind {
    RANDOM,
    ZIPF,
    NORMAL,
    ZONED
  }

  /**
   * One zone: {@code accessPercent} of the I/O goes to the next {@code rangePercent} of the space.
   */
  public record Zone(double accessPercent, double rangePercent) {}

  public static final RandomDistribution UNIFORM =
      new RandomDistribution(Kind.RANDOM, 0, List.of());

  public RandomDistribution {
    zones = List.copyOf(zones);
  }

  /** Parses fio's syntax; throws {@link IllegalArgumentException} with the reason. */
  public static RandomDistribution parse(String text) {
    String s = text.strip().toLowerCase(Locale.ROOT);
    int colon = s.indexOf(':');
    String name = colon < 0 ? s : s.substring(0, colon);
    String args = colon < 0 ? "" : s.substring(colon + 1);
    return switch (name) {
      case "random" -> {
        if (!args.isEmpty()) {
          throw new IllegalArgumentException("random_distribution=random takes no value");
        }
        yield UNIFORM;
      }
      case "zipf" -> {
        double theta = number(args, "zipf needs a theta, e.g. zipf:0.768780");
        if (theta <= 0 || theta == 1.0) {
          throw new IllegalArgumentException("zipf theta must be > 0 and not 1 (fio's rule)");
        }
        yield new RandomDistribution(Kind.ZIPF, theta, List.of());
      }
      case "normal" -> {
        double dev = args.isEmpty() ? 0 : number(args, "normal takes a deviation, e.g. normal:10");
        if (dev < 0 || dev >= 100) {
          throw new IllegalArgumentException("normal deviation must be in [0, 100) percent");
        }
        yield new RandomDistribution(Kind.NORMAL, dev, List.of());
      }
      case "zoned" -> new RandomDistribution(Kind.ZONED, 0, zones(args));
      default ->
          throw new IllegalArgumentException(
              "random_distribution '"
                  + text
                  + "' is not supported (random, zipf:THETA, normal:DEV, zoned:A/R:...)");
    };
  }

  private static double number(String text, String message) {
    String first = text.contains(":") ? text.substring(0, text.indexOf(':')) : text;
    if (text.contains(":")) {
      throw new IllegalArgumentException(
          "a distribution center ('" + text + "') is not supported by tidestore bench");
    }
    double value;
    try {
      value = Double.parseDouble(first);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(message, e);
    }
    if (!Double.isFinite(value)) {
      throw new IllegalArgumentException("'" + first + "' is too large: " + message);
    }
    return value;
  }

  private static List<Zone> zones(String args) {
    if (args.isEmpty()) {
      throw new IllegalArgumentException("zoned needs zones, e.g. zoned:60/10:30/20:8/30:2/40");
    }
    List<Zone> zones = new ArrayList<>();
    double access = 0;
    double range = 0;
    for (String part : args.split(":")) {
      String[] pair = part.split("/");
      if (pair.length != 2) {
        throw new IllegalArgumentException("zone '" + part + "' is not ACCESS%/RANGE%");
      }
      Zone zone;
      try {
        zone = new Zone(Double.parseDouble(pair[0]), Double.parseDouble(pair[1]));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("zone '" + part + "' is not ACCESS%/RANGE%", e);
      }
      if (zone.accessPercent() < 0 || zone.rangePercent() <= 0) {
        throw new IllegalArgumentException("zone '" + part + "' has a negative or empty share");
      }
      zones.add(zone);
      access += zone.accessPercent();
      range += zone.rangePercent();
    }
    if (Math.abs(access - 100) > 1e-9 || Math.abs(range - 100) > 1e-9) {
      throw new IllegalArgumentException(
          "zoned shares must each sum to 100 (access " + access + ", range " + range + ")");
    }
    return zones;
  }

  /** fio's spelling, for generated job files and reports. */
  public String toFio() {
    return switch (kind) {
      case RANDOM -> "random";
      case ZIPF -> "zipf:" + parameter;
      case NORMAL -> parameter == 0 ? "normal" : "normal:" + parameter;
      case ZONED -> {
        StringBuilder sb = new StringBuilder("zoned");
        for (Zone z : zones) {
          sb.append(':').append(trim(z.accessPercent())).append('/').append(trim(z.rangePercent()));
        }
        yield sb.toString();
      }
    };
  }

  private static String trim(double d) {
    return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
  }
}
