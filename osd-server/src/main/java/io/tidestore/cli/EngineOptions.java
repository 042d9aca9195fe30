package io.tidestore.cli;

import io.tidestore.osd.EngineSettings;
import io.tidestore.osd.EngineSettings.EngineKind;
import picocli.CommandLine.Option;

/** The daemon's threading-engine flags: which engine, and the classic engine's thread counts. */
final class EngineOptions {
  @Option(
      names = "--engine",
      paramLabel = "reactor|classic",
      description =
          "Threading engine: reactor (run to completion on pinned reactors) or classic (Ceph's"
              + " classic OSD: messenger threads, a sharded op queue whose workers take ops under a"
              + " PG lock, a commit thread, a finisher, one I/O thread owning the rings;"
              + " docs/engines.md). Default: ${DEFAULT-VALUE}.")
  String engine = "reactor";

  @Option(
      names = "--msgr-threads",
      paramLabel = "N",
      description =
          "classic engine: messenger threads, unpinned event loops that decode requests, enqueue"
              + " ops and write replies, nothing else (Ceph's ms_async_op_threads)."
              + " Default: ${DEFAULT-VALUE}.")
  int msgrThreads = EngineSettings.DEFAULT_MSGR_THREADS;

  @Option(
      names = "--op-shards",
      paramLabel = "N",
      description =
          "classic engine: queues of the sharded op queue; a store shard's ops go to queue"
              + " (shard mod N) (Ceph's osd_op_num_shards). Default: ${DEFAULT-VALUE}.")
  int opShards = EngineSettings.DEFAULT_OP_SHARDS;

  @Option(
      names = "--op-threads-per-shard",
      paramLabel = "N",
      description =
          "classic engine: worker threads per op queue, each taking an op under its placement"
              + " group's lock (Ceph's osd_op_num_threads_per_shard). Default: ${DEFAULT-VALUE}.")
  int opThreadsPerShard = EngineSettings.DEFAULT_OP_THREADS_PER_SHARD;

  // Removed: the op workers are now --op-shards x --op-threads-per-shard. Kept, hidden, so that
  // passing it (or setting op-threads in a conf file) is an error naming its replacements rather
  // than picocli's "unknown option".
  @Option(names = "--op-threads", hidden = true, paramLabel = "N")
  String removedOpThreads;

  // Removed (issue 20): the classic engine's threads are Ceph's (messengers, op shards and their
  // workers, the commit thread, the finisher), and the rings are reaped by one I/O thread as a
  // classic OSD has one BlueStore aio thread; no knob sets it. Hidden, so that passing it (or
  // io-threads in a conf file) is an error naming the replacements, not "unknown option".
  @Option(names = "--io-threads", hidden = true, paramLabel = "N")
  String removedIoThreads;

  /**
   * The engine settings these flags give.
   *
   * @throws IllegalArgumentException naming the flag, for a removed flag or a bad value
   */
  EngineSettings settings() {
    if (removedOpThreads != null) {
      throw new IllegalArgumentException(
          "--op-threads (conf key op-threads) was removed: the classic engine's op workers are"
              + " --op-shards (queues, default "
              + EngineSettings.DEFAULT_OP_SHARDS
              + ") x --op-threads-per-shard (workers per queue, default "
              + EngineSettings.DEFAULT_OP_THREADS_PER_SHARD
              + "), as Ceph's osd_op_num_shards x osd_op_num_threads_per_shard");
    }
    if (removedIoThreads != null) {
      throw new IllegalArgumentException(
          "--io-threads (conf key io-threads) was removed: the classic engine reaps its rings on"
              + " one I/O thread, as a classic OSD has one BlueStore aio thread; its thread counts"
              + " are --msgr-threads (default "
              + EngineSettings.DEFAULT_MSGR_THREADS
              + "), --op-shards (default "
              + EngineSettings.DEFAULT_OP_SHARDS
              + ") and --op-threads-per-shard (default "
              + EngineSettings.DEFAULT_OP_THREADS_PER_SHARD
              + ")");
    }
    try {
      return new EngineSettings(
          EngineKind.parse(engine),
          msgrThreads,
          opShards,
          opThreadsPerShard,
          EngineSettings.DEFAULT_IO_THREADS);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Invalid engine settings: " + e.getMessage(), e);
    }
  }
}
