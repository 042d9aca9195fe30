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
  static final int OPT_STARTTLS = 5;
  static final int OPT_INFO = 6;
  static final int OPT_GO = 7;
  static final int OPT_STRUCTURED_REPLY = 8;
  static final int OPT_LIST_META_CONTEXT = 9;
  static final int OPT_SET_META_CONTEXT = 10;

  // Option replies.
  static final int REP_ACK = 1;
  static final int REP_SERVER = 2;
  static final int REP_INFO = 3;
  static final int REP_META_CONTEXT = 4;
  static final int REP_FLAG_ERROR = 1 << 31;
  static final int REP_ERR_UNSUP = REP_FLAG_ERROR | 1;
  static final int REP_ERR_POLICY = REP_FLAG_ERROR | 2;
  static final int REP_ERR_INVALID = REP_FLAG_ERROR | 3;
  static final int REP_ERR_TLS_REQD = REP_FLAG_ERROR | 5;
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
  static final int FLAG_SEND_DF = 1 << 7;
  static final int FLAG_CAN_MULTI_CONN = 1 << 8;
  static final int FLAG_SEND_CACHE = 1 << 10;
  static final int FLAG_SEND_FAST_ZERO = 1 << 11;

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
  static final int CMD_CACHE = 5;
  static final int CMD_WRITE_ZEROES = 6;
  static final int CMD_BLOCK_STATUS = 7;
  static final int CMD_FLAG_FUA = 1;
  static final int CMD_FLAG_NO_HOLE = 1 << 1;
  static final int CMD_FLAG_DF = 1 << 2;
  static final int CMD_FLAG_REQ_ONE = 1 << 3;
  static final int CMD_FLAG_FAST_ZERO = 1 << 4;

  // Structured replies ("Structured reply chunk message"): magic u32, flags u16, type u16, cookie
  // u64, length u32, then the chunk's payload.
  static final int STRUCTURED_REPLY_MAGIC = 0x668e33ef;
  static final int STRUCTURED_REPLY_HEADER = 20;
  static final int REPLY_FLAG_DONE = 1;
  static final int REPLY_TYPE_NONE = 0;
  static final int REPLY_TYPE_OFFSET_DATA = 1;
  static final int REPLY_TYPE_OFFSET_HOLE = 2;
  static final int REPLY_TYPE_BLOCK_STATUS = 5;
  static final int REPLY_TYPE_ERROR = (1 << 15) + 1;

  // Metadata contexts: base:allocation is the only one ("Metadata querying").
  static final String BASE_ALLOCATION = "base:allocation";

  /** The id we give base:allocation in NBD_REP_META_CONTEXT and BLOCK_STATUS chunks. */
  static final int BASE_ALLOCATION_ID = 1;

  static final int STATE_HOLE = 1;
  static final int STATE_ZERO = 1 << 1;

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
   * The most of an image one NBD_CMD_BLOCK_STATUS describes: 256 MiB, 64 objects of 4 MiB, each one
   * allocation query to its shard, and at most 64 Ki descriptors (512 KiB) in the reply. The spec
   * lets a reply cover less than was asked; clients (qemu, libnbd) ask again from where it ended.
   */
  static final long MAX_BLOCK_STATUS_BYTES = 256L << 20;

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
      case NOT_FOUND, NO_ATTRIBUTE, READ_ONLY, IO_ERROR, CORRUPT, TRY_AGAIN, STALE_MAP -> EIO;
    };
  }

  /** The transmission flags of an export. */
  static int transmissionFlags(boolean readOnly, boolean structuredReplies) {
    // CAN_MULTI_CONN is true: every connection to an image goes to the same store objects, and a
    // write is acknowledged only once durable, so a FLUSH on any connection covers them all.
    int flags =
        Nbd.FLAG_HAS_FLAGS | Nbd.FLAG_SEND_FLUSH | Nbd.FLAG_CAN_MULTI_CONN | Nbd.FLAG_SEND_CACHE;
    if (structuredReplies) {
      flags |= Nbd.FLAG_SEND_DF; // a read is always one chunk: never fragmented
    }
    if (readOnly) {
      return flags | Nbd.FLAG_READ_ONLY;
    }
    return flags
        | Nbd.FLAG_SEND_FUA
        | Nbd.FLAG_SEND_TRIM
        | Nbd.FLAG_SEND_WRITE_ZEROES
        | Nbd.FLAG_SEND_FAST_ZERO;
  }
}
