package io.tidestore.osd.cpu;

import java.util.BitSet;

/**
 * The kernel's CPU list format ({@code 0-3,8,10-11}), as in {@code Cpus_allowed_list} and sysfs
 * {@code *_list} files (Documentation/admin-guide/cputopology.rst). Stateless and thread-safe.
 */
public final class CpuList {
  /** CPUs above this are refused: Linux's CONFIG_NR_CPUS maximum is 8192. */
  static final int MAX_CPU = 8191;

  private CpuList() {}

  /** Parses a list; blank means empty. Throws IllegalArgumentException naming the bad part. */
  public static BitSet parse(String text) {
    BitSet cpus = new BitSet();
    String trimmed = text.strip();
    if (trimmed.isEmpty()) {
      return cpus;
    }
    for (String part : trimmed.split(",", -1)) {
      int dash = part.indexOf('-');
      try {
        if (dash < 0) {
          cpus.set(check(Integer.parseInt(part.strip()), text));
        } else {
          int from = check(Integer.parseInt(part.substring(0, dash).strip()), text);
          int to = check(Integer.parseInt(part.substring(dash + 1).strip()), text);
          if (to < from) {
            throw new IllegalArgumentException("bad CPU range '" + part + "' in '" + text + "'");
          }
          cpus.set(from, to + 1);
        }
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("bad CPU list '" + text + "': '" + part + "'", e);
      }
    }
    return cpus;
  }

  private static int check(int cpu, String text) {
    if (cpu < 0 || cpu > MAX_CPU) {
      throw new IllegalArgumentException("CPU " + cpu + " out of range in '" + text + "'");
    }
    return cpu;
  }

  /** Formats as the kernel does: ascending, runs collapsed to {@code a-b}. */
  public static String format(BitSet cpus) {
    StringBuilder out = new StringBuilder();
    int from = cpus.nextSetBit(0);
    while (from >= 0) {
      int to = cpus.nextClearBit(from) - 1;
      if (!out.isEmpty()) {
        out.append(',');
      }
      out.append(from);
      if (to > from) {
        out.append('-').append(to);
      }
      from = cpus.nextSetBit(to + 1);
    }
    return out.toString();
  }
}
