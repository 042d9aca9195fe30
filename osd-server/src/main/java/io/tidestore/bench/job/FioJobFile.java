package io.tidestore.bench.job;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads fio job files: {@code [section]} headers, {@code key=value} or bare {@code key} lines,
 * {@code #}/{@code ;} comments, and {@code [global]} sections that apply to the jobs after them.
 * Only the options {@code tidestore bench} honours are accepted; any other is an error naming the
 * file, line and option, because silently ignoring an option would measure another workload.
 */
public final class FioJobFile {
  /** Options with an effect on the workload, all honoured by the native bench. */
  static final Set<String> HONOURED =
      Set.of(
          "rw",
          "readwrite",
          "rwmixread",
          "rwmixwrite",
          "bs",
          "blocksize",
          "iodepth",
          "numjobs",
          "size",
          "runtime",
          "ramp_time",
          "time_based",
          "random_distribution",
          "filename",
          "uri",
          "rbdname");

  /**
   * Options accepted without effect, because the native bench already behaves so (direct I/O,
   * aggregated reporting, its own client in place of an ioengine) or they only name a target.
   */
  static final Set<String> ACCEPTED_WITHOUT_EFFECT =
      Set.of(
          "ioengine",
          "direct",
          "group_reporting",
          "thread",
          "description",
          "pool",
          "clientname",
          "randrepeat",
          "norandommap",
          "invalidate");

  private FioJobFile() {}

  /** Parses a job file from disk. */
  public static List<FioJob> read(Path file) throws IOException {
    return parse(file.toString(), Files.readString(file, StandardCharsets.UTF_8));
  }

  /**
   * Parses job-file text; {@code source} names it in errors. Throws {@link
   * IllegalArgumentException} with {@code source:line: reason}.
   */
  public static List<FioJob> parse(String source, String text) {
    Map<String, String> global = new LinkedHashMap<>();
    List<FioJob> jobs = new ArrayList<>();
    String section = null;
    Map<String, String> current = null;
    int sectionLine = 0;
    String[] lines = text.split("\\R", -1);
    for (int n = 0; n < lines.length; n++) {
      String line = lines[n].strip();
      String where = source + ":" + (n + 1);
      if (line.isEmpty() || line.startsWith("#") || line.startsWith(";")) {
        continue;
      }
      if (line.startsWith("[")) {
        if (!line.endsWith("]") || line.length() < 3) {
          throw new IllegalArgumentException(where + ": malformed section header '" + line + "'");
        }
        if (section != null && !section.equals("global")) {
          jobs.add(build(source, sectionLine, section, current));
        }
        section = line.substring(1, line.length() - 1).strip();
        if (section.isEmpty()) {
          // fio needs a name for a job; "[]" rendered back by FioJob.toJobFile would not parse
          throw new IllegalArgumentException(where + ": section without a name '" + line + "'");
        }
        sectionLine = n + 1;
        current = section.equals("global") ? global : new LinkedHashMap<>(global);
        continue;
      }
      if (section == null) {
        throw new IllegalArgumentException(
            where + ": option outside any [section]: '" + line + "'");
      }
      int eq = line.indexOf('=');
      String key = (eq < 0 ? line : line.substring(0, eq)).strip().toLowerCase(Locale.ROOT);
      String value = eq < 0 ? "" : line.substring(eq + 1).strip();
      if (!HONOURED.contains(key) && !ACCEPTED_WITHOUT_EFFECT.contains(key)) {
        throw new IllegalArgumentException(
            where
                + ": option '"
                + key
                + "' is not supported by tidestore bench; supported: "
                + String.join(", ", supported()));
      }
      current.put(key, value);
    }
    if (section != null && !section.equals("global")) {
      jobs.add(build(source, sectionLine, section, current));
    }
    if (jobs.isEmpty()) {
      throw new IllegalArgumentException(source + ": no job section (only [global] or nothing)");
    }
    return jobs;
  }

  /** Every option name a job file may use. */
  public static TreeSet<String> supported() {
    TreeSet<String> all = new TreeSet<>(HONOURED);
    all.addAll(ACCEPTED_WITHOUT_EFFECT);
    return all;
  }

  /** Builds a job from merged options; also used for jobs given as command-line flags. */
  public static FioJob build(String source, int line, String name, Map<String, String> options) {
    String where = source + ":" + line + " [" + name + "]";
    try {
      String rwText = options.getOrDefault("rw", options.getOrDefault("readwrite", "read"));
      FioJob.Rw rw = FioJob.Rw.parse(rwText.toLowerCase(Locale.ROOT));
      int rwmixread = 50;
      if (options.containsKey("rwmixread")) {
        rwmixread = percent("rwmixread", options.get("rwmixread"));
      } else if (options.containsKey("rwmixwrite")) {
        rwmixread = 100 - percent("rwmixwrite", options.get("rwmixwrite"));
      }
      long bs = ByteSize.parse(options.getOrDefault("bs", options.getOrDefault("blocksize", "4k")));
      if (bs <= 0 || bs % 512 != 0) {
        throw new IllegalArgumentException("bs=" + bs + " must be a positive multiple of 512");
      }
      int iodepth = positiveInt("iodepth", options.getOrDefault("iodepth", "1"));
      int numjobs = positiveInt("numjobs", options.getOrDefault("numjobs", "1"));
      long size = options.containsKey("size") ? ByteSize.parse(options.get("size")) : 0;
      double runtime = seconds("runtime", options.getOrDefault("runtime", "0"));
      double ramp = seconds("ramp_time", options.getOrDefault("ramp_time", "0"));
      boolean timeBased = flag("time_based", options.get("time_based"));
      if (timeBased && runtime <= 0) {
        throw new IllegalArgumentException("time_based needs a runtime");
      }
      RandomDistribution distribution =
          options.containsKey("random_distribution")
              ? RandomDistribution.parse(options.get("random_distribution"))
              : RandomDistribution.UNIFORM;
      if (distribution.kind() != RandomDistribution.Kind.RANDOM && !rw.random()) {
        throw new IllegalArgumentException(
            "random_distribution applies to random patterns, not rw=" + rw.fio());
      }
      return new FioJob(
          name,
          rw,
          rwmixread,
          bs,
          iodepth,
          numjobs,
          size,
          runtime,
          ramp,
          timeBased,
          distribution,
          target(options),
          options);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
    }
  }

  /** The image named by filename, rbdname or an nbd:// uri's export name. */
  static String target(Map<String, String> options) {
    if (options.containsKey("rbdname")) {
      return options.get("rbdname");
    }
    if (options.containsKey("uri")) {
      try {
        URI uri = new URI(options.get("uri"));
        if (!"nbd".equals(uri.getScheme())) {
          throw new IllegalArgumentException("uri=" + uri + " is not an nbd:// URI");
        }
        String path = uri.getPath() == null ? "" : uri.getPath();
        return path.startsWith("/") ? path.substring(1) : path;
      } catch (URISyntaxException e) {
        throw new IllegalArgumentException("uri is not a URI: " + e.getMessage(), e);
      }
    }
    return options.get("filename");
  }

  private static int percent(String key, String value) {
    int v = positiveIntOrZero(key, value);
    if (v > 100) {
      throw new IllegalArgumentException(key + "=" + value + " must be 0-100");
    }
    return v;
  }

  private static int positiveInt(String key, String value) {
    int v = positiveIntOrZero(key, value);
    if (v == 0) {
      throw new IllegalArgumentException(key + " must be at least 1");
    }
    return v;
  }

  private static int positiveIntOrZero(String key, String value) {
    try {
      String digits = value.strip();
      if (!digits.chars().allMatch(c -> c < 0x80)) {
        // Integer.parseInt reads any script's digits; fio, which gets the option as written,
        // reads only ASCII
        throw new NumberFormatException(digits);
      }
      int v = Integer.parseInt(digits);
      if (v < 0) {
        throw new IllegalArgumentException(key + "=" + value + " is negative");
      }
      return v;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + "=" + value + " is not a whole number", e);
    }
  }

  private static boolean flag(String key, String value) {
    if (value == null) {
      return false;
    }
    return switch (value.strip()) {
      case "", "1", "true" -> true;
      case "0", "false" -> false;
      default -> throw new IllegalArgumentException(key + "=" + value + " is not 0 or 1");
    };
  }

  /** fio time values: a number with an optional us/ms/s/m/h/d suffix; seconds by default. */
  static double seconds(String key, String value) {
    String s = value.strip().toLowerCase(Locale.ROOT);
    int end = 0;
    while (end < s.length() && (ByteSize.isDigit(s.charAt(end)) || s.charAt(end) == '.')) {
      end++;
    }
    if (end == 0) {
      throw new IllegalArgumentException(key + "=" + value + " is not a time (e.g. 60, 30s, 2m)");
    }
    double number;
    try {
      number = Double.parseDouble(s.substring(0, end));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + "=" + value + " is not a time", e);
    }
    double unit =
        switch (s.substring(end)) {
          case "", "s" -> 1;
          case "ms" -> 1e-3;
          case "us" -> 1e-6;
          case "m" -> 60;
          case "h" -> 3600;
          case "d" -> 86400;
          default -> throw new IllegalArgumentException(key + "=" + value + " has an unknown unit");
        };
    double seconds = number * unit;
    if (!Double.isFinite(seconds)) {
      throw new IllegalArgumentException(key + "=" + value + " is too large");
    }
    return seconds;
  }
}
