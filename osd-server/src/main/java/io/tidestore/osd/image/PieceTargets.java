package io.tidestore.osd.image;

import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.ops.PieceIo;
import io.tidestore.store.api.Allocation;
import io.tidestore.store.api.StoreException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * An image's resolved data objects, so the data path formats, encodes and hashes each object name
 * once per connection instead of once per request. Direct-mapped by object number: an image up to
 * {@link #SLOTS} objects (32 GiB at 4 MiB objects) never resolves a name twice, a bigger one
 * resolves again only on a slot collision. One instance per connection, on its reactor thread. Its
 * store frees and reports blocks itself ({@link ImageHoles}).
 */
final class PieceTargets implements ImageHoles {
  static final int SLOTS = 8192;

  private final PieceIo io;
  private final ImageLayout layout;
  private final PieceIo.Target[] targets;
  private final long[] numbers;

  PieceTargets(PieceIo io, ImageLayout layout, long objectCount) {
    this.io = io;
    this.layout = layout;
    int slots = (int) Math.clamp(objectCount, 1, SLOTS);
    this.targets = new PieceIo.Target[slots];
    this.numbers = new long[slots];
  }

  PieceIo io() {
    return io;
  }

  @Override
  public CompletionStage<Void> punch(long object, int offset, int length) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    io.punch(of(object), offset, length, (v, failure) -> complete(done, v, failure));
    return done;
  }

  @Override
  public CompletionStage<Allocation> allocation(long object, long offset, long length) {
    CompletableFuture<Allocation> done = new CompletableFuture<>();
    io.allocation(of(object), offset, length, (a, failure) -> complete(done, a, failure));
    return done;
  }

  private static <T> void complete(CompletableFuture<T> done, T value, StoreException failure) {
    if (failure != null) {
      done.completeExceptionally(ObjectOpsException.from(failure));
    } else {
      done.complete(value);
    }
  }

  /** Object {@code number}'s target, resolving it when not cached. */
  PieceIo.Target of(long number) {
    int slot = (int) (number % targets.length);
    PieceIo.Target target = targets[slot];
    if (target == null || numbers[slot] != number) {
      target = io.target(layout.dataObjectName(number));
      targets[slot] = target;
      numbers[slot] = number;
    }
    return target;
  }
}
