/**
 * Who may call a single-owner object now ({@link io.tidestore.store.owner.Owner}): one thread for
 * good (the reactor engine: a reference comparison, no lock), or whichever thread holds a lock (the
 * classic engine: a store shard used by several op workers and a commit thread, one at a time). The
 * I/O queues, the extent cache and the shard check it on every call.
 *
 * <p>May depend on: the JDK only; the layers that own single-thread state depend on it.
 */
package io.tidestore.store.owner;
