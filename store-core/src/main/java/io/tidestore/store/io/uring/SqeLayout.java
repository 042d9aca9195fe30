package io.tidestore.store.io.uring;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct io_uring_sqe} (include/uapi/linux/io_uring.h), 64 bytes, as used for read, write
 * and fsync; the unions are named after the member this code writes.
 *
 * <pre>
 *   0      1      2             4                           8
 *   +------+------+-------------+---------------------------+
 *   |opcode|flags |   ioprio    |            fd             |
 *   +------+------+-------------+---------------------------+
 *   8  off (file offset)                                   16
 *  16  addr (buffer address)                               24
 *  24  len                      | 28 rw_flags / fsync_flags 32
 *  32  user_data                                           40
 *  40  buf_index  | personality | 44 file_index / splice_fd 48
 *  48  addr3                                               56
 *  56  __pad2                                              64
 * </pre>
 */
final class SqeLayout {
  private SqeLayout() {}

  static final int OPCODE = 0;
  static final int FLAGS = 1;
  static final int IOPRIO = 2;
  static final int FD = 4;
  static final int OFF = 8;
  static final int ADDR = 16;
  static final int LEN = 24;
  static final int RW_FLAGS = 28;
  static final int USER_DATA = 32;
  static final int BUF_INDEX = 40;
  static final int PERSONALITY = 42;
  static final int FILE_INDEX = 44;
  static final int ADDR3 = 48;
  static final int PAD2 = 56;
  static final int SIZE = 64;

  static final StructLayout LAYOUT =
      MemoryLayout.structLayout(
          ValueLayout.JAVA_BYTE.withName("opcode"),
          ValueLayout.JAVA_BYTE.withName("flags"),
          ValueLayout.JAVA_SHORT.withName("ioprio"),
          ValueLayout.JAVA_INT.withName("fd"),
          ValueLayout.JAVA_LONG.withName("off"),
          ValueLayout.JAVA_LONG.withName("addr"),
          ValueLayout.JAVA_INT.withName("len"),
          ValueLayout.JAVA_INT.withName("rw_flags"),
          ValueLayout.JAVA_LONG.withName("user_data"),
          ValueLayout.JAVA_SHORT.withName("buf_index"),
          ValueLayout.JAVA_SHORT.withName("personality"),
          ValueLayout.JAVA_INT.withName("file_index"),
          ValueLayout.JAVA_LONG.withName("addr3"),
          ValueLayout.JAVA_LONG.withName("__pad2"));

  static long offsetOf(String field) {
    return LAYOUT.byteOffset(groupElement(field));
  }

  /**
   * Writes every field of the SQE at {@code base}, so nothing of an earlier use of the slot (a
   * union member another opcode set) survives.
   */
  static void write(
      MemorySegment sqes,
      long base,
      byte opcode,
      byte flags,
      int fd,
      long offset,
      long address,
      int length,
      int opFlags,
      long userData,
      short bufIndex) {
    sqes.set(ValueLayout.JAVA_BYTE, base + OPCODE, opcode);
    sqes.set(ValueLayout.JAVA_BYTE, base + FLAGS, flags);
    sqes.set(ValueLayout.JAVA_SHORT_UNALIGNED, base + IOPRIO, (short) 0);
    sqes.set(ValueLayout.JAVA_INT_UNALIGNED, base + FD, fd);
    sqes.set(ValueLayout.JAVA_LONG_UNALIGNED, base + OFF, offset);
    sqes.set(ValueLayout.JAVA_LONG_UNALIGNED, base + ADDR, address);
    sqes.set(ValueLayout.JAVA_INT_UNALIGNED, base + LEN, length);
    sqes.set(ValueLayout.JAVA_INT_UNALIGNED, base + RW_FLAGS, opFlags);
    sqes.set(ValueLayout.JAVA_LONG_UNALIGNED, base + USER_DATA, userData);
    sqes.set(ValueLayout.JAVA_SHORT_UNALIGNED, base + BUF_INDEX, bufIndex);
    sqes.set(ValueLayout.JAVA_SHORT_UNALIGNED, base + PERSONALITY, (short) 0);
    sqes.set(ValueLayout.JAVA_INT_UNALIGNED, base + FILE_INDEX, 0);
    sqes.set(ValueLayout.JAVA_LONG_UNALIGNED, base + ADDR3, 0L);
    sqes.set(ValueLayout.JAVA_LONG_UNALIGNED, base + PAD2, 0L);
  }
}
