package io.tidestore.osd.protocol;

import io.netty.channel.EventLoop;
import io.tidestore.osd.ops.ObjectOps;
import io.tidestore.osd.security.ServerSecurity;

/** What a connection handler needs from its server; implementations are thread-safe. */
interface ServerContext {
  ShardMap shardMap();

  /** The object operations, or null when the OSD serves no store (or serves a cluster). */
  ObjectOps ops();

  /** What protocol v2 serves: null for a standalone daemon, or a cluster OSD not yet registered. */
  io.tidestore.osd.ops.ClusterOps clusterOps();

  /** The reactor index of {@code loop}, or {@link FrameDescriptor#ANY_REACTOR}. */
  int reactorOf(EventLoop loop);

  int reactorCount();

  /** Who may do what on a connection, and the counters of what was refused. */
  ServerSecurity security();
}
