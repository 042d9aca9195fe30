package io.tidestore.store.io.uring;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct io_uring_cqe} (include/uapi/linux/io_uring.h), 16 bytes (no IORING_SETUP_CQE32).
 *
 * <pre>
 *   0  user_data                                            8
 *   8  res (bytes, or -errno)   | 12 flags (IORING_CQE_F_*) 16
 * </pre>
 */
final class CqeLayout {
  private CqeLayout() {}

  static final int USER_DATA = 0;
  static final int RES = 8;
  static final int FLAGS = 12;
  static final int SIZE = 16;

  static final StructLayout LAYOUT =
      MemoryLayout.structLayout(
          ValueLayout.JAVA_LONG.withName("user_data"),
          ValueLayout.JAVA_INT.withName("res"),
          ValueLayout.JAVA_INT.withName("flags"));

  static long offsetOf(String field) {
    return LAYOUT.byteOffset(groupElement(field));
  }
}
