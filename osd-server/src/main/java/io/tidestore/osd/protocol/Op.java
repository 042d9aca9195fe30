package io.tidestore.osd.protocol;

/** Protocol v1 op codes (docs/protocol.md, "Op codes"). */
public final class Op {
  public static final int HELLO = 0x01;
  public static final int PING = 0x02;
  public static final int SHARD_MAP = 0x03;
  public static final int WRITE = 0x10;
  public static final int READ = 0x11;
  public static final int STAT = 0x12;
  public static final int TRUNCATE = 0x13;
  public static final int REMOVE = 0x14;
  public static final int LIST = 0x15;

  /** Frees whole 4 KiB blocks of an object (v2, the cluster's TRIM). */
  public static final int PUNCH = 0x16;

  /** Which blocks of an object hold data (v2, the cluster's BLOCK_STATUS). */
  public static final int ALLOCATION = 0x17;

  public static final int SET_XATTR = 0x20;
  public static final int GET_XATTR = 0x21;
  public static final int RM_XATTR = 0x22;

  private Op() {}

  /** Names of the object ops whose latency is measured, indexed by op code (else null). */
  public static String[] measuredNames() {
    String[] names = new String[256];
    for (int op :
        new int[] {
          WRITE,
          READ,
          STAT,
          TRUNCATE,
          REMOVE,
          LIST,
          PUNCH,
          ALLOCATION,
          SET_XATTR,
          GET_XATTR,
          RM_XATTR
        }) {
      names[op] = name(op);
    }
    return names;
  }

  /** Whether {@code op} changes an object (it needs {@code rw}); the others only read it. */
  public static boolean mutates(int op) {
    return switch (op) {
      case WRITE, TRUNCATE, REMOVE, PUNCH, SET_XATTR, RM_XATTR -> true;
      default -> false;
    };
  }

  /** The op's name for logs; {@code op 0x7f} for unknown codes. */
  public static String name(int op) {
    return switch (op) {
      case HELLO -> "hello";
      case PING -> "ping";
      case SHARD_MAP -> "shard_map";
      case WRITE -> "write";
      case READ -> "read";
      case STAT -> "stat";
      case TRUNCATE -> "truncate";
      case REMOVE -> "remove";
      case LIST -> "list";
      case PUNCH -> "punch";
      case ALLOCATION -> "allocation";
      case SET_XATTR -> "setxattr";
      case GET_XATTR -> "getxattr";
      case RM_XATTR -> "rmxattr";
      case V2.REP_OP -> "rep_op";
      case V2.PG_QUERY -> "pg_query";
      case V2.ACTIVATE -> "activate";
      case V2.STRAY_QUERY -> "stray_query";
      case V2Recovery.GET_LOG -> "get_log";
      case V2Recovery.PUSH -> "push";
      case V2Recovery.PULL -> "pull";
      case V2Recovery.LOG_SYNC -> "log_sync";
      case V2Recovery.LIST_PG -> "list_pg";
      case V2Scrub.BLOCK_CRCS -> "block_crcs";
      case V2Scrub.DEEP_SCRUB -> "deep_scrub";
      default -> String.format("op 0x%02x", op);
    };
  }
}
