package io.tidestore.store.io.uring;

/**
 * Constants of the io_uring ABI, from the kernel's {@code include/uapi/linux/io_uring.h} (each
 * group names its enum or #define block there) and, for the numbers of the system calls, {@code
 * arch/x86/entry/syscalls/syscall_64.tbl} / {@code include/uapi/asm-generic/unistd.h} (425..427 on
 * both x86-64 and aarch64).
 */
final class IoUringAbi {
  private IoUringAbi() {}

  static final int SYS_IO_URING_SETUP = 425;
  static final int SYS_IO_URING_ENTER = 426;
  static final int SYS_IO_URING_REGISTER = 427;

  // enum io_uring_op
  static final byte IORING_OP_NOP = 0;
  static final byte IORING_OP_FSYNC = 3;
  static final byte IORING_OP_READ_FIXED = 4;
  static final byte IORING_OP_WRITE_FIXED = 5;
  static final byte IORING_OP_ASYNC_CANCEL = 14;
  static final byte IORING_OP_READ = 22;
  static final byte IORING_OP_WRITE = 23;

  // sqe->flags: IOSQE_*_BIT
  static final byte IOSQE_FIXED_FILE = 1;
  static final byte IOSQE_IO_LINK = 1 << 2;

  // sqe->fsync_flags
  static final int IORING_FSYNC_DATASYNC = 1;

  // sqe->rw_flags: RWF_DSYNC from include/uapi/linux/fs.h (per-I/O O_DSYNC)
  static final int RWF_DSYNC = 0x2;

  // io_uring_params->flags: IORING_SETUP_*
  static final int IORING_SETUP_CQSIZE = 1 << 3;
  static final int IORING_SETUP_SUBMIT_ALL = 1 << 7;
  static final int IORING_SETUP_COOP_TASKRUN = 1 << 8;
  static final int IORING_SETUP_TASKRUN_FLAG = 1 << 9;
  static final int IORING_SETUP_SINGLE_ISSUER = 1 << 12;
  static final int IORING_SETUP_DEFER_TASKRUN = 1 << 13;

  // io_uring_params->features: IORING_FEAT_*
  static final int IORING_FEAT_SINGLE_MMAP = 1;
  static final int IORING_FEAT_NODROP = 1 << 1;
  static final int IORING_FEAT_EXT_ARG = 1 << 8;

  // io_uring_enter flags: IORING_ENTER_*
  static final int IORING_ENTER_GETEVENTS = 1;
  static final int IORING_ENTER_EXT_ARG = 1 << 3;

  // sq_ring->flags: IORING_SQ_*
  static final int IORING_SQ_CQ_OVERFLOW = 1 << 1;
  static final int IORING_SQ_TASKRUN = 1 << 2;

  // mmap offsets: IORING_OFF_*
  static final long IORING_OFF_SQ_RING = 0L;
  static final long IORING_OFF_CQ_RING = 0x8000000L;
  static final long IORING_OFF_SQES = 0x10000000L;

  // enum io_uring_register_op
  static final int IORING_REGISTER_BUFFERS = 0;
  static final int IORING_UNREGISTER_BUFFERS = 1;
  static final int IORING_REGISTER_FILES = 2;
  static final int IORING_UNREGISTER_FILES = 3;
  static final int IORING_REGISTER_EVENTFD = 4;
  static final int IORING_UNREGISTER_EVENTFD = 5;
  static final int IORING_REGISTER_FILES_UPDATE = 6;
  static final int IORING_REGISTER_BUFFERS2 = 15;
  static final int IORING_REGISTER_BUFFERS_UPDATE = 16;
  static final int IORING_REGISTER_IOWQ_MAX_WORKERS = 19;

  /** io_uring_rsrc_register.flags: a table of empty slots, filled by updates. */
  static final int IORING_RSRC_REGISTER_SPARSE = 1;

  /** Kernel caps: IORING_MAX_ENTRIES and IORING_MAX_CQ_ENTRIES (io_uring/io_uring.c). */
  static final int IORING_MAX_ENTRIES = 32768;

  static final int IORING_MAX_CQ_ENTRIES = 2 * IORING_MAX_ENTRIES;
}
