package io.tidestore.osd.pg;

import java.util.concurrent.CompletableFuture;

/** Passing one stage's outcome on to the future a caller waits on. Stateless. */
// The forwarding stage carries nothing: its outcome is {@code to}'s.
@SuppressWarnings("FutureReturnValueIgnored")
final class Futures {
  private Futures() {}

  /** Completes {@code to} as {@code from} completes, value or failure. */
  static <T> void forward(CompletableFuture<T> from, CompletableFuture<T> to) {
    from.whenComplete(
        (v, e) -> {
          if (e != null) {
            to.completeExceptionally(e);
          } else {
            to.complete(v);
          }
        });
  }
}
