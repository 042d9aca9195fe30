package io.tidestore.osd.nbd;

import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.store.api.ShardStore;

/**
 * NBD protocol constants, from the protocol specification: doc/proto.md of the NBD project
 * (github.com/NetworkBlockDevice/nbd), sections "Handshake", "Option types", "Option reply types",
 * "Transmission flags", "Request types", "Error values".
 */
final class Nbd {
  private Nbd() {}

  // Handshake ("Newstyle negotiation").
  static final long NBDMAGIC = 0x4e42444d41474943L; // "NBDMAGIC"
  static final long IHAVEOPT = 0x49484156454f5054L; // "IHAVEOPT"
  static final long OPTION_REPLY_MAGIC = 0x3e889045565a9L;
  static final int FLAG_FIXED_NEWSTYLE = 1;
  static final int FLAG_NO_ZEROES = 1 << 1;
  static final int CLIENT_FLAG_FIXED_NEWSTYLE = 1;
  static final int CLIENT_FLAG_NO_ZEROES = 1 << 1;

  // Options.
  static final int OPT_EXPORT_NAME = 1;
  static final int OPT_ABORT = 2;
  static final int OPT_LIST = 3;
  static final int OPT_INFO = 6;
  static final int OPT_GO = 7;

  // Option replies.
  static final int REP_ACK = 1;
  static final int REP_SERVER = 2;
  static final int REP_INFO = 3;
  static final int REP_FLAG_ERROR = 1 << 31;
  static final int REP_ERR_UNSUP = REP_FLAG_ERROR | 1;
  static final int REP_ERR_POLICY = REP_FLAG_ERROR | 2;
  static final int REP_ERR_INVALID = REP_FLAG_ERROR | 3;
  static final int REP_ERR_UNKNOWN = REP_FLAG_ERROR | 6;
  static final int REP_ERR_TOO_BIG = REP_FLAG_ERROR | 9;

  // NBD_REP_INFO types.
  static final int INFO_EXPORT = 0;
  static final int INFO_NAME = 1;
  static final int INFO_BLOCK_SIZE = 3;

  // Transmission flags.
  static final int FLAG_HAS_FLAGS = 1;
  static final int FLAG_READ_ONLY = 1 << 1;
  static final int FLAG_SEND_FLUSH = 1 << 2;
  static final int FLAG_SEND_FUA = 1 << 3;
  static final int FLAG_SEND_TRIM = 1 << 5;
  static final int FLAG_SEND_WRITE_ZEROES = 1 << 6;
  static final int FLAG_CAN_MULTI_CONN = 1 << 8;

  // Transmission.
  static final int REQUEST_MAGIC = 0x25609513;
  static final int SIMPLE_REPLY_MAGIC = 0x67446698;

  /** Magic, error, cookie. */
  static final int SIMPLE_REPLY_HEADER = 16;

  static final int REQUEST_HEADER = 28;
  static final int CMD_READ = 0;
  static final int CMD_WRITE = 1;
  static final int CMD_DISC = 2;
  static final int CMD_FLUSH = 3;
  static final int CMD_TRIM = 4;
  static final int CMD_WRITE_ZEROES = 6;
  static final int CMD_FLAG_FUA = 1;
  static final int CMD_FLAG_NO_HOLE = 1 << 1;

  // Error values (errno numbers the protocol fixes).
  static final int EPERM = 1;
  static final int EIO = 5;
  static final int ENOMEM = 12;
  static final int EINVAL = 22;
  static final int ENOSPC = 28;
  static final int EOVERFLOW = 75;
  static final int ENOTSUP = 95;
  static final int ESHUTDOWN = 108;

  /**
   * Block sizes we advertise in NBD_INFO_BLOCK_SIZE. Minimum 1: the store takes writes of any byte
   * range.
   */
  static final int MIN_BLOCK = 1;

  /**
   * Preferred: the store's block ({@link ShardStore#BLOCK_SIZE}); a write covering only part of one
   * makes the store read the rest of it first (a read-modify-write).
   */
  static final int PREFERRED_BLOCK = ShardStore.BLOCK_SIZE;

  /**
   * Maximum payload, the spec's recommended 32 MiB. Larger than the store's largest single write on
   * shards under 1 GiB (ShardStore#maxWriteBytes, 4 MiB less 8 KiB on 256 MiB shards): the image
   * data path writes such a payload in chunks the store accepts, so every write up to this
   * succeeds.
   */
  static final int MAX_PAYLOAD = 32 << 20;

  /** Largest option payload accepted (a 4096-byte name plus fields, with room). */
  static final int MAX_OPTION_LENGTH = 16 << 10;

  /**
   * The errno to send for an op that failed with {@code code}: NBD's own error values where one
   * fits, else EIO, which a client takes for a failed request (a missing object never fails a
   * request: the image reads it as a hole).
   */
  static int errorFor(ObjectOpsException.Code code) {
    return switch (code) {
      case NO_SPACE -> ENOSPC;
      case NO_MEMORY -> ENOMEM;
      case INVALID -> EINVAL;
      case CLOSED -> ESHUTDOWN;
      case UNSUPPORTED -> ENOTSUP;
      case NOT_FOUND, NO_ATTRIBUTE, READ_ONLY, IO_ERROR, CORRUPT -> EIO;
    };
  }
}
