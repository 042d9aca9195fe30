package io.tidestore.osd.pg;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.tidestore.cluster.pg.PgMeta;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.osd.ops.ObjectChunk;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.api.Transaction;
import java.lang.foreign.MemorySegment;
import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * Objects as recovery copies them, a piece at a time ({@link ObjectChunk}): read out of this
 * shard's store, and written into it. A piece is applied in transactions of at most half the
 * shard's largest write, each whole: the first removes what the shard had of the object, the last
 * sets its size and attributes (its version {@code _v} among them), so an object whose copy was cut
 * short by a crash has no version and is copied again. Runs on the shard's thread.
 */
// Each store or copy step completes the caller's future in its own whenComplete.
@SuppressWarnings("FutureReturnValueIgnored")
final class ObjectCopies {
  private final ShardPgs shard;
  private final ShardStore store;

  ObjectCopies(ShardPgs shard) {
    this.shard = shard;
    this.store = shard.store;
  }

  private static ObjectKey key(PgId pg, String name) {
    return PgMeta.objectKey(pg.pool(), name);
  }

  /** The piece of object {@code name} at {@code offset}, at most {@code max} bytes. */
  CompletableFuture<ObjectChunk> read(PgId pg, String name, long offset, int max) {
    CompletableFuture<ObjectChunk> done = new CompletableFuture<>();
    ObjectKey key = key(pg, name);
    store.stat(
        key,
        (stat, failure) -> {
          if (failure != null) {
            if (failure.code() == StoreException.Code.NOT_FOUND) {
              done.complete(
                  new ObjectChunk(
                      name,
                      true,
                      true,
                      true,
                      0,
                      0,
                      Collections.emptySortedMap(),
                      Unpooled.EMPTY_BUFFER));
            } else {
              done.completeExceptionally(ObjectOpsException.from(failure));
            }
            return;
          }
          long size = stat.size();
          int length = (int) Math.max(0, Math.min(max, size - offset));
          boolean last = offset + length >= size;
          SortedMap<String, byte[]> found;
          try {
            found = last ? shard.attributes(key) : Collections.emptySortedMap();
          } catch (ObjectOpsException e) {
            done.completeExceptionally(e);
            return;
          }
          SortedMap<String, byte[]> xattrs = found == null ? new TreeMap<>() : found;
          ByteBuf data = ByteBufAllocator.DEFAULT.directBuffer(Math.max(1, length));
          store.read(
              key,
              offset,
              MemorySegment.ofBuffer(data.nioBuffer(0, length)),
              (count, f) -> {
                if (f != null) {
                  data.release();
                  done.completeExceptionally(ObjectOpsException.from(f));
                } else {
                  // Holes and the end of the object read as zeros: the piece is always whole.
                  data.writerIndex(length);
                  if (count < length) {
                    data.setZero(count, length - count);
                  }
                  done.complete(
                      new ObjectChunk(name, false, offset == 0, last, offset, size, xattrs, data));
                }
              });
        });
    return done;
  }

  /** Applies {@code chunk} (and releases it); completes once durable. */
  CompletableFuture<Void> write(PgId pg, ObjectChunk chunk) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    done.whenComplete((v, e) -> chunk.release());
    int step =
        (int) Math.max(4096, Math.min(chunk.data().readableBytes(), store.maxWriteBytes() / 2));
    writeFrom(key(pg, chunk.name()), chunk, 0, step, done);
    return done;
  }

  private void writeFrom(
      ObjectKey key, ObjectChunk chunk, int from, int step, CompletableFuture<Void> done) {
    ByteBuf data = chunk.data();
    int length = Math.min(step, data.readableBytes() - from);
    boolean firstTxn = from == 0;
    boolean lastTxn = from + length >= data.readableBytes();
    Transaction t = new Transaction();
    if (chunk.missing()) {
      t.remove(key);
    } else {
      if (chunk.first() && firstTxn) {
        t.remove(key).touch(key);
      }
      if (length > 0) {
        t.write(
            key,
            chunk.offset() + from,
            MemorySegment.ofArray(
                io.netty.buffer.ByteBufUtil.getBytes(data, data.readerIndex() + from, length)));
      }
      if (chunk.last() && lastTxn) {
        t.truncate(key, chunk.size());
        for (var x : chunk.xattrs().entrySet()) {
          t.setXattr(key, x.getKey(), x.getValue());
        }
      }
    }
    store.submit(
        t,
        (v, failure) -> {
          if (failure != null) {
            done.completeExceptionally(ObjectOpsException.from(failure));
          } else if (lastTxn || chunk.missing()) {
            done.complete(null);
          } else {
            writeFrom(key, chunk, from + length, step, done);
          }
        });
  }
}
