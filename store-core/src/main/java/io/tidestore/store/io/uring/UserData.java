package io.tidestore.store.io.uring;

/**
 * The 64-bit user_data of our SQEs, echoed in their CQEs.
 *
 * <pre>
 *  63              32 31      16 15     8 7      0
 *  +-----------------+----------+--------+--------+
 *  |      slot       | reserved |  part  | opcode |
 *  +-----------------+----------+--------+--------+
 * </pre>
 *
 * part 0 is an operation's main SQE, part 1 the fdatasync linked after a write.
 */
final class UserData {
  static final int PART_MAIN = 0;
  static final int PART_SYNC = 1;

  private UserData() {}

  static long pack(int slot, int part, byte opcode) {
    return ((long) slot << 32) | ((long) (part & 0xff) << 8) | (opcode & 0xffL);
  }

  static int slot(long userData) {
    return (int) (userData >>> 32);
  }

  static int part(long userData) {
    return (int) (userData >>> 8) & 0xff;
  }

  static byte opcode(long userData) {
    return (byte) userData;
  }
}
