/**
 * The classic engine's threads, as Ceph's classic OSD is built (docs/engines.md): the sharded op
 * queue ({@link io.tidestore.osd.classic.OpShard}: op shards of worker threads serving placement
 * groups in order under their PG lock, reached as {@link io.tidestore.osd.classic.PgExecutor}s),
 * the {@link io.tidestore.osd.classic.CommitThread} that seals what the workers staged (BlueStore's
 * kv_sync_thread), the {@link io.tidestore.osd.classic.Finisher} that runs acknowledgements, and
 * its I/O loops as the threads that own the rings ({@link
 * io.tidestore.osd.classic.EventLoopIoThread} for {@code store.io.handoff}). {@link
 * io.tidestore.osd.classic.ClassicThreads} starts them all. It knows threads and locks, not the
 * store: {@code osd.store} mounts the shards on them.
 *
 * <p>Depends on {@code osd.reactor} (the I/O loops, binding a ring's eventfd to a loop) and
 * store-core's {@code io} and {@code owner} layers.
 */
package io.tidestore.osd.classic;
