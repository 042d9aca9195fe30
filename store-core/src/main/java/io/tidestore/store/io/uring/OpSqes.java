package io.tidestore.store.io.uring;

import io.tidestore.store.io.IoOpException;

/**
 * The SQEs of one operation (io_uring_enter(2), io_uring(7)): the opcode (READ/WRITE, or their
 * FIXED forms when the buffer lies in a registered region), the file as a registered slot
 * (IOSQE_FIXED_FILE) or a plain fd, RWF_DSYNC for a durable write, and for a write-then-sync the
 * IOSQE_IO_LINK that makes the kernel run the fdatasync only after the write succeeded. Stateless;
 * nothing allocates.
 */
final class OpSqes {
  private OpSqes() {}

  /**
   * Adds the SQE of a read or write in operation slot {@code slot}, then for {@link
   * IoOpException.Op#WRITE_THEN_SYNC} the fdatasync linked after it; {@code region} is the
   * registered buffer holding the buffer, or -1.
   */
  static void addReadWrite(
      SubmissionQueue sq,
      IoOpException.Op op,
      IoUringFile file,
      int slot,
      long offset,
      long address,
      int length,
      int region) {
    boolean isRead = op == IoOpException.Op.READ;
    byte opcode;
    if (region >= 0) {
      opcode = isRead ? IoUringAbi.IORING_OP_READ_FIXED : IoUringAbi.IORING_OP_WRITE_FIXED;
    } else {
      opcode = isRead ? IoUringAbi.IORING_OP_READ : IoUringAbi.IORING_OP_WRITE;
    }
    int rwFlags = op == IoOpException.Op.WRITE_DURABLE ? IoUringAbi.RWF_DSYNC : 0;
    boolean linked = op == IoOpException.Op.WRITE_THEN_SYNC;
    byte flags = fileFlags(file);
    if (linked) {
      flags |= IoUringAbi.IOSQE_IO_LINK;
    }
    sq.add(
        opcode,
        flags,
        fileDescriptor(file),
        offset,
        address,
        length,
        rwFlags,
        UserData.pack(slot, UserData.PART_MAIN, opcode),
        (short) Math.max(region, 0));
    if (linked) {
      addFsync(sq, file, slot, UserData.PART_SYNC);
    }
  }

  /** Adds an fdatasync (IORING_FSYNC_DATASYNC) of {@code file} as part {@code part} of a slot. */
  static void addFsync(SubmissionQueue sq, IoUringFile file, int slot, int part) {
    sq.add(
        IoUringAbi.IORING_OP_FSYNC,
        fileFlags(file),
        fileDescriptor(file),
        0,
        0,
        0,
        IoUringAbi.IORING_FSYNC_DATASYNC,
        UserData.pack(slot, part, IoUringAbi.IORING_OP_FSYNC),
        (short) 0);
  }

  private static byte fileFlags(IoUringFile file) {
    return file.fixedIndex >= 0 ? IoUringAbi.IOSQE_FIXED_FILE : 0;
  }

  /** The slot with IOSQE_FIXED_FILE, else the fd; -1 (EBADF from the kernel) once closed. */
  private static int fileDescriptor(IoUringFile file) {
    return file.fixedIndex >= 0 ? file.fixedIndex : file.fd;
  }
}
