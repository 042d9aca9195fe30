package io.tidestore.store.shard;

import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.api.Transaction;
import io.tidestore.store.record.Blocks;

/**
 * The argument checks of mutations, shared by the single-operation calls and {@link Transaction}s,
 * which pass them all before anything of them is staged (a failed check names the operation, and
 * the whole transaction fails with nothing applied). Each check returns what is wrong, or null.
 */
final class OpChecks {
  private OpChecks() {}

  /** What is wrong with {@code t} (INVALID), or null. */
  static StoreException check(Transaction t, long maxOpBytes) {
    if (t.dataBytes() > maxOpBytes) {
      return MutationGate.invalid(
          "transaction of "
              + t.dataBytes()
              + " bytes of write data exceeds the largest record of this shard, "
              + maxOpBytes
              + " bytes (a transaction is one record)");
    }
    for (int i = 0; i < t.size(); i++) {
      String bad = checkOp(t, i);
      if (bad != null) {
        return MutationGate.invalid(
            "transaction operation " + i + " (" + t.kind(i) + " " + t.key(i).name() + "): " + bad);
      }
    }
    return null;
  }

  private static String checkOp(Transaction t, int i) {
    return switch (t.kind(i)) {
      case WRITE -> writeRange(t.offset(i), t.length(i));
      case TRUNCATE -> truncateSize(t.offset(i));
      case PUNCH -> punchRange(t.offset(i), t.length(i));
      case SET_XATTR -> {
        StoreException name = MetadataWrites.checkXattrName(t.xattrName(i));
        if (name != null) {
          yield name.getMessage();
        }
        int n = t.xattrValue(i).length;
        yield n > ShardStore.MAX_XATTR_BYTES
            ? "xattr value of " + n + " bytes exceeds " + ShardStore.MAX_XATTR_BYTES
            : null;
      }
      case REMOVE_XATTR -> {
        StoreException name = MetadataWrites.checkXattrName(t.xattrName(i));
        yield name == null ? null : name.getMessage();
      }
      case REMOVE, TOUCH -> null;
    };
  }

  /** A write of {@code length} bytes at {@code offset} must stay within the largest object. */
  static String writeRange(long offset, long length) {
    return offset < 0 || offset + length > ShardStore.MAX_OBJECT_BYTES
        ? "write of "
            + length
            + " bytes at "
            + offset
            + " leaves the object's range [0, "
            + ShardStore.MAX_OBJECT_BYTES
            + ")"
        : null;
  }

  static String truncateSize(long size) {
    return size < 0 || size > ShardStore.MAX_OBJECT_BYTES
        ? "size " + size + " outside [0, " + ShardStore.MAX_OBJECT_BYTES + "]"
        : null;
  }

  /** A punch covers whole blocks within the largest object. */
  static String punchRange(long offset, long length) {
    return offset < 0
            || length < 0
            || (offset & (Blocks.SIZE - 1)) != 0
            || (length & (Blocks.SIZE - 1)) != 0
            || offset + length > ShardStore.MAX_OBJECT_BYTES
        ? "punch of "
            + length
            + " bytes at "
            + offset
            + ": offset and length must be multiples of "
            + Blocks.SIZE
            + " within [0, "
            + ShardStore.MAX_OBJECT_BYTES
            + ")"
        : null;
  }
}
