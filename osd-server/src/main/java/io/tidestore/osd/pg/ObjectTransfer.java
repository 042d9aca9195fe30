package io.tidestore.osd.pg;

import io.tidestore.osd.ops.ObjectChunk;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;

/**
 * Whole objects of a PG moved between this OSD and a member, a piece ({@link #CHUNK}) at a time:
 * pushed from here (PUSH), or pulled to here (PULL); recovery's moves and deep scrub's repairs.
 * Each piece is applied as {@link ObjectCopies} does. Runs on the PG's shard thread.
 */
final class ObjectTransfer {
  /** Bytes moved per piece (the receiver applies a piece in transactions that fit its records). */
  static final int CHUNK = 1 << 20;

  private final ShardPgs shard;

  ObjectTransfer(ShardPgs shard) {
    this.shard = shard;
  }

  /**
   * Pushes object {@code name} of {@code pg} from here to member {@code osd}; {@code check} runs
   * before each piece and throws to stop (the PG changed its interval); {@code moved} hears the
   * bytes of each piece once it is applied.
   */
  CompletableFuture<Void> push(Pg pg, int osd, String name, Runnable check, LongConsumer moved) {
    return push(pg, osd, name, 0, check, moved);
  }

  /**
   * As {@link #push}, pausing {@code pauseMillis} for every {@link #CHUNK} bytes moved (recovery's
   * throttle).
   */
  CompletableFuture<Void> push(
      Pg pg, int osd, String name, long pauseMillis, Runnable check, LongConsumer moved) {
    return copyObject(
        pauseMillis,
        check,
        moved,
        0,
        offset -> shard.copies.read(pg.id, name, offset, CHUNK),
        chunk -> shard.services.peers().push(osd, shard.address(osd), shard.epoch(), pg.id, chunk));
  }

  /** Pulls object {@code name} of {@code pg} from member {@code osd} to here; as {@link #push}. */
  CompletableFuture<Void> pull(Pg pg, int osd, String name, Runnable check, LongConsumer moved) {
    return copyObject(
        0,
        check,
        moved,
        0,
        offset ->
            shard
                .services
                .peers()
                .pull(osd, shard.address(osd), shard.epoch(), pg.id, name, offset, CHUNK),
        chunk -> shard.copies.write(pg.id, chunk));
  }

  /**
   * Copies one object a piece at a time: {@code read} gets the piece at an offset, {@code write}
   * applies it where it goes (it owns the piece). After each piece it pauses {@code pauseMillis}
   * for every {@link #CHUNK} bytes the piece held (recovery's throttle: a byte rate, so that small
   * objects are not held up as whole pieces would be).
   */
  private CompletableFuture<Void> copyObject(
      long pauseMillis,
      Runnable check,
      LongConsumer moved,
      long offset,
      LongFunction<CompletableFuture<ObjectChunk>> read,
      Function<ObjectChunk, CompletableFuture<Void>> write) {
    check.run();
    return read.apply(offset)
        .thenComposeAsync(
            (ObjectChunk chunk) -> {
              boolean last = chunk.last() || chunk.missing();
              int bytes = chunk.data().readableBytes();
              long next = chunk.offset() + bytes;
              return write
                  .apply(chunk)
                  .thenCompose(v -> shard.after(pauseMillis * bytes / CHUNK))
                  .thenComposeAsync(
                      v -> {
                        moved.accept(bytes);
                        return last
                            ? CompletableFuture.<Void>completedFuture(null)
                            : copyObject(pauseMillis, check, moved, next, read, write);
                      },
                      shard.executor);
            },
            shard.executor);
  }
}
