package io.tidestore.store.cache;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Policy switches asked for from any thread, waiting for the cache's owner thread to apply them: at
 * most one waits, a newer request superseding (and cancelling) an unapplied one. The owner checks
 * {@link #isPending()} on every cache call, one acquire load, and {@link #take}s the request to
 * apply it.
 */
final class PolicyRequests {
  /** A requested policy and the future its requester holds. */
  record Request(PolicyConfig config, CompletableFuture<PolicyConfig> done) {}

  private final AtomicReference<Request> pending = new AtomicReference<>();

  /** Any thread: asks for {@code config}; the future completes once the owner applied it. */
  CompletableFuture<PolicyConfig> request(PolicyConfig config) {
    Request request = new Request(config, new CompletableFuture<>());
    Request previous = pending.getAndSet(request);
    if (previous != null) {
      previous.done.cancel(false);
    }
    return request.done;
  }

  boolean isPending() {
    return pending.getAcquire() != null;
  }

  /** The waiting request, now the caller's to apply or fail; null when none waits. */
  Request take() {
    return pending.getAndSet(null);
  }

  /** Fails the waiting request, if any: the cache closed before applying it. */
  void failPending(String cacheName) {
    Request request = take();
    if (request != null) {
      request.done.completeExceptionally(new IllegalStateException(cacheName + " is closed"));
    }
  }
}
