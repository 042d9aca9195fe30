package io.tidestore.store.testing;

import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.io.IoQueue;
import java.io.IOException;
import java.util.function.Consumer;

/**
 * Runs one call of a mounted shard to completion on the calling thread, driving the shard's loop
 * passes and its I/O queue as a reactor would: for tests over real files and devices.
 */
public final class StoreCalls {
  private StoreCalls() {}

  /**
   * The value {@code op} completes with; its failure is thrown.
   *
   * @throws AssertionError when nothing completes within 20 s
   */
  public static <T> T call(ShardStore s, IoQueue q, Consumer<StoreCompletion<T>> op)
      throws IOException {
    Object[] out = new Object[1];
    StoreException[] err = new StoreException[1];
    boolean[] done = {false};
    op.accept(
        (v, e) -> {
          out[0] = v;
          err[0] = e;
          done[0] = true;
        });
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (!done[0]) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no completion within 20 s");
      }
      s.endOfPass();
      q.await(10_000_000L);
    }
    if (err[0] != null) {
      throw err[0];
    }
    @SuppressWarnings("unchecked") // the completion's type parameter
    T v = (T) out[0];
    return v;
  }
}
