package io.tidestore.store.io.uring;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct io_uring_params} with its {@code io_sqring_offsets} and {@code io_cqring_offsets}
 * (include/uapi/linux/io_uring.h), 120 bytes, filled in by io_uring_setup(2).
 *
 * <pre>
 *   0 sq_entries | 4 cq_entries | 8 flags | 12 sq_thread_cpu | 16 sq_thread_idle | 20 features
 *  24 wq_fd | 28 resv[3]
 *  40 sq_off: head tail ring_mask ring_entries flags dropped array resv1 (u32 each) user_addr (u64)
 *  80 cq_off: head tail ring_mask ring_entries overflow cqes flags resv1 (u32 each) user_addr (u64)
 * </pre>
 */
final class ParamsLayout {
  private ParamsLayout() {}

  static final int SQ_ENTRIES = 0;
  static final int CQ_ENTRIES = 4;
  static final int FLAGS = 8;
  static final int FEATURES = 20;
  static final int SQ_OFF = 40;
  static final int CQ_OFF = 80;
  static final int SIZE = 120;

  /** Offsets within io_sqring_offsets. */
  static final int SQ_HEAD = 0;

  static final int SQ_TAIL = 4;
  static final int SQ_RING_MASK = 8;
  static final int SQ_RING_ENTRIES = 12;
  static final int SQ_FLAGS = 16;
  static final int SQ_DROPPED = 20;
  static final int SQ_ARRAY = 24;

  /** Offsets within io_cqring_offsets. */
  static final int CQ_HEAD = 0;

  static final int CQ_TAIL = 4;
  static final int CQ_RING_MASK = 8;
  static final int CQ_RING_ENTRIES = 12;
  static final int CQ_OVERFLOW = 16;
  static final int CQ_CQES = 20;
  static final int CQ_FLAGS = 24;
  static final int RING_OFFSETS_SIZE = 40;

  static final StructLayout SQ_OFFSETS =
      MemoryLayout.structLayout(
          ValueLayout.JAVA_INT.withName("head"),
          ValueLayout.JAVA_INT.withName("tail"),
          ValueLayout.JAVA_INT.withName("ring_mask"),
          ValueLayout.JAVA_INT.withName("ring_entries"),
          ValueLayout.JAVA_INT.withName("flags"),
          ValueLayout.JAVA_INT.withName("dropped"),
          ValueLayout.JAVA_INT.withName("array"),
          ValueLayout.JAVA_INT.withName("resv1"),
          ValueLayout.JAVA_LONG.withName("user_addr"));

  static final StructLayout CQ_OFFSETS =
      MemoryLayout.structLayout(
          ValueLayout.JAVA_INT.withName("head"),
          ValueLayout.JAVA_INT.withName("tail"),
          ValueLayout.JAVA_INT.withName("ring_mask"),
          ValueLayout.JAVA_INT.withName("ring_entries"),
          ValueLayout.JAVA_INT.withName("overflow"),
          ValueLayout.JAVA_INT.withName("cqes"),
          ValueLayout.JAVA_INT.withName("flags"),
          ValueLayout.JAVA_INT.withName("resv1"),
          ValueLayout.JAVA_LONG.withName("user_addr"));

  static final StructLayout LAYOUT =
      MemoryLayout.structLayout(
          ValueLayout.JAVA_INT.withName("sq_entries"),
          ValueLayout.JAVA_INT.withName("cq_entries"),
          ValueLayout.JAVA_INT.withName("flags"),
          ValueLayout.JAVA_INT.withName("sq_thread_cpu"),
          ValueLayout.JAVA_INT.withName("sq_thread_idle"),
          ValueLayout.JAVA_INT.withName("features"),
          ValueLayout.JAVA_INT.withName("wq_fd"),
          MemoryLayout.sequenceLayout(3, ValueLayout.JAVA_INT).withName("resv"),
          SQ_OFFSETS.withName("sq_off"),
          CQ_OFFSETS.withName("cq_off"));

  static long offsetOf(String field) {
    return LAYOUT.byteOffset(groupElement(field));
  }

  /**
   * {@code struct io_uring_getevents_arg} for IORING_ENTER_EXT_ARG: sigmask (u64), sigmask_sz
   * (u32), min_wait_usec (u32; pad before 6.12), ts (u64 pointer to a __kernel_timespec).
   */
  static final int GETEVENTS_ARG_SIGMASK = 0;

  static final int GETEVENTS_ARG_SIGMASK_SZ = 8;
  static final int GETEVENTS_ARG_TS = 16;
  static final int GETEVENTS_ARG_SIZE = 24;

  /** {@code struct __kernel_timespec}: tv_sec (s64), tv_nsec (s64). */
  static final int TIMESPEC_SIZE = 16;

  /** {@code struct iovec}: iov_base (pointer), iov_len (size_t). */
  static final int IOVEC_SIZE = 16;

  /** {@code struct io_uring_files_update}: offset (u32), resv (u32), fds (u64 pointer). */
  static final int FILES_UPDATE_SIZE = 16;
}
