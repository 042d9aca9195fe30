package io.tidestore.osd.pg;

import io.tidestore.cluster.pg.Eversion;
import io.tidestore.cluster.pg.PgMeta;
import io.tidestore.osd.ops.ObjectDigest;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.StoreException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32C;

/**
 * This OSD's copy of one object as deep scrub compares it ({@link ObjectDigest}): read from the
 * store a piece at a time and checksummed per 4 KiB block. A piece the store refuses (CORRUPT: a
 * block failed its stored crc; IO_ERROR) is read again block by block, and each block refused is
 * listed as unreadable rather than failing the whole digest: that is a bad copy to repair, not a
 * scrub that cannot go on. Runs on the shard's thread; one digest at a time per caller.
 */
final class LocalDigest {
  /** Bytes read at a time: 64 blocks. */
  static final int PIECE = 64 * ObjectDigest.BLOCK;

  private final ShardPgs shard;
  private final ObjectKey key;
  private final CompletableFuture<ObjectDigest> done = new CompletableFuture<>();
  private final byte[] piece = new byte[PIECE];
  private final CRC32C crc = new CRC32C();
  private long size;
  private Eversion version;
  private int attrsCrc;
  private int[] crcs;
  private int[] unreadable = new int[4];
  private int unreadableCount;

  private LocalDigest(ShardPgs shard, ObjectKey key) {
    this.shard = shard;
    this.key = key;
  }

  /** The digest of {@code key} in {@code shard}'s store. */
  static CompletableFuture<ObjectDigest> of(ShardPgs shard, ObjectKey key) {
    LocalDigest d = new LocalDigest(shard, key);
    d.start();
    return d.done;
  }

  private void start() {
    shard.store.stat(
        key,
        (stat, failure) -> {
          if (failure != null) {
            if (failure.code() == StoreException.Code.NOT_FOUND) {
              done.complete(ObjectDigest.missing());
            } else {
              done.completeExceptionally(ObjectOpsException.from(failure));
            }
            return;
          }
          try {
            SortedMap<String, byte[]> attrs = shard.attributes(key);
            attributes(attrs == null ? java.util.Collections.emptySortedMap() : attrs);
          } catch (ObjectOpsException e) {
            done.completeExceptionally(e);
            return;
          }
          size = stat.size();
          crcs = new int[ObjectDigest.blocksOf(size)];
          readPiece(0);
        });
  }

  /** The version and the attributes' crc32c: each name's UTF-8, a 0 byte, the value's length. */
  private void attributes(SortedMap<String, byte[]> attrs) {
    crc.reset();
    byte[] length = new byte[4];
    for (Map.Entry<String, byte[]> a : attrs.entrySet()) {
      crc.update(a.getKey().getBytes(StandardCharsets.UTF_8));
      crc.update(0);
      int n = a.getValue().length;
      length[0] = (byte) (n >>> 24);
      length[1] = (byte) (n >>> 16);
      length[2] = (byte) (n >>> 8);
      length[3] = (byte) n;
      crc.update(length);
      crc.update(a.getValue());
    }
    attrsCrc = (int) crc.getValue();
    byte[] v = attrs.get(PgMeta.VERSION);
    try {
      version = v == null ? null : PgMeta.decodeEversion(v);
    } catch (IllegalArgumentException e) {
      version = null; // an unreadable version compares as none: the copies' versions then differ
    }
  }

  private void readPiece(long offset) {
    if (offset >= size) {
      int[] bad = java.util.Arrays.copyOf(unreadable, unreadableCount);
      done.complete(new ObjectDigest(true, size, version, attrsCrc, crcs, bad));
      return;
    }
    int length = (int) Math.min(PIECE, size - offset);
    shard.store.read(
        key,
        offset,
        MemorySegment.ofArray(piece).asSlice(0, length),
        (count, failure) -> {
          if (failure == null) {
            checksum(offset, count, length);
            readPiece(offset + length);
          } else if (refused(failure)) {
            readBlock(offset, offset + length);
          } else {
            done.completeExceptionally(ObjectOpsException.from(failure));
          }
        });
  }

  /** A piece was refused: its blocks one by one, from {@code at} to {@code end}. */
  private void readBlock(long at, long end) {
    if (at >= end) {
      readPiece(end);
      return;
    }
    int length = (int) Math.min(ObjectDigest.BLOCK, end - at);
    shard.store.read(
        key,
        at,
        MemorySegment.ofArray(piece).asSlice(0, length),
        (count, failure) -> {
          if (failure == null) {
            checksum(at, count, length);
          } else if (refused(failure)) {
            markUnreadable((int) (at / ObjectDigest.BLOCK));
          } else {
            done.completeExceptionally(ObjectOpsException.from(failure));
            return;
          }
          readBlock(at + length, end);
        });
  }

  private static boolean refused(StoreException failure) {
    return failure.code() == StoreException.Code.CORRUPT
        || failure.code() == StoreException.Code.IO_ERROR;
  }

  /**
   * The crc32c of each block of {@code piece[0, length)}, which holds the object from {@code at}.
   */
  private void checksum(long at, int count, int length) {
    if (count < length) {
      java.util.Arrays.fill(piece, count, length, (byte) 0); // the end moved: reads as zeros
    }
    for (int from = 0; from < length; from += ObjectDigest.BLOCK) {
      crc.reset();
      crc.update(piece, from, Math.min(ObjectDigest.BLOCK, length - from));
      crcs[(int) ((at + from) / ObjectDigest.BLOCK)] = (int) crc.getValue();
    }
  }

  private void markUnreadable(int block) {
    if (unreadableCount == unreadable.length) {
      unreadable = java.util.Arrays.copyOf(unreadable, unreadableCount * 2);
    }
    unreadable[unreadableCount++] = block;
  }
}
