package io.tidestore.osd.protocol;

/**
 * Byte layout of a protocol v1 frame (docs/protocol.md). All integers are big-endian.
 *
 * <pre>
 *  0               4       5       6               8                              16
 *  +---------------+-------+-------+---------------+------------------------------+-----------
 *  | length  u32   | op u8 |flag u8| status u16    | request id u64               | body ...
 *  +---------------+-------+-------+---------------+------------------------------+-----------
 *  length = bytes after the length field = 12 + body length
 *  status = 0 in requests; 0 (OK) or an error code in replies
 * </pre>
 */
public final class FrameDescriptor {
  public static final int LENGTH_OFFSET = 0;
  public static final int OP_OFFSET = 4;
  public static final int FLAGS_OFFSET = 5;
  public static final int STATUS_OFFSET = 6;
  public static final int REQUEST_ID_OFFSET = 8;
  public static final int HEADER_LENGTH = 16;

  /** The smallest legal length field: a header without body. */
  public static final int MIN_LENGTH = HEADER_LENGTH - 4;

  /** Largest data payload of one op (read length, write data): 16 MiB. */
  public static final int MAX_DATA = 16 << 20;

  /** Largest legal length field: the data payload plus room for names and fields. */
  public static final int MAX_LENGTH = MAX_DATA + 8192;

  /** Longest object name, in UTF-8 bytes. */
  public static final int MAX_NAME = 1024;

  /** Longest xattr key, in UTF-8 bytes (Linux XATTR_NAME_MAX). */
  public static final int MAX_XATTR_KEY = 255;

  /** Largest xattr value (Linux XATTR_SIZE_MAX). */
  public static final int MAX_XATTR_VALUE = 64 << 10;

  /** Largest ping payload echoed back. */
  public static final int MAX_PING = 1024;

  /** HELLO magic, "TIDE". */
  public static final int MAGIC = 0x54494445;

  /** The one protocol version this code speaks. */
  public static final int VERSION = 1;

  /**
   * SHARD_MAP placement: the store's crc32c placement of (pool 0, name); see {@link
   * io.tidestore.osd.ops.ObjectNames}.
   */
  public static final int PLACEMENT_CRC32C = 1;

  /** HELLO "any reactor": the server keeps the connection where it landed. */
  public static final int ANY_REACTOR = 0xffff;

  private FrameDescriptor() {}
}
