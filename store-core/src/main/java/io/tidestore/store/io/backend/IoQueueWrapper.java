package io.tidestore.store.io.backend;

import io.tidestore.store.io.IoQueue;

/**
 * A seam for test fixtures: a {@link java.util.ServiceLoader} provider that may wrap every queue
 * {@link IoQueues#create} builds, e.g. to inject device faults or to record what a power cut would
 * lose in a real daemon. Nothing in the shipped jar implements it; store-core's test-jar does, and
 * only a process started with that jar on its class path (and the fixture's switch set) loads one.
 * A wrapper that is present says so in the log, at WARNING, for every queue it wraps.
 */
public interface IoQueueWrapper {
  /**
   * Returns the queue to use in place of {@code queue} (or {@code queue} itself to leave it alone).
   * Called on the thread that will own the queue, right after it was created.
   */
  IoQueue wrap(IoQueue queue);
}
