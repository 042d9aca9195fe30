package io.tidestore.store.api;

import java.util.Arrays;

/**
 * Which bytes of a range of an object hold data: the allocated 4 KiB blocks, merged into ranges;
 * everything else in the range (never written, punched, or past the object's end) reads as zeros
 * and is a hole. What NBD's block status reports.
 *
 * @param size the object's size
 * @param ranges {@code [start0, end0, start1, end1, ...)}: sorted, disjoint, non-adjacent byte
 *     ranges, clipped to the asked range and to {@code size}
 */
public record Allocation(long size, long[] ranges) {
  public Allocation {
    ranges = ranges.clone();
  }

  /** Number of allocated ranges. */
  public int count() {
    return ranges.length / 2;
  }

  public long start(int i) {
    return ranges[2 * i];
  }

  public long end(int i) {
    return ranges[2 * i + 1];
  }

  @Override
  public long[] ranges() {
    return ranges.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Allocation a && a.size == size && Arrays.equals(a.ranges, ranges);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(size) * 31 + Arrays.hashCode(ranges);
  }

  @Override
  public String toString() {
    return "Allocation[size=" + size + ", ranges=" + Arrays.toString(ranges) + "]";
  }
}
