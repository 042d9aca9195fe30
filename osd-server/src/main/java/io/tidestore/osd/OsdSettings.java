package io.tidestore.osd;

import io.tidestore.osd.cpu.CpuPolicy;
import io.tidestore.osd.reactor.IdlePoll;
import io.tidestore.osd.reactor.Transport;
import io.tidestore.osd.security.SecuritySettings;
import io.tidestore.store.api.CleanerPolicy;
import io.tidestore.store.api.JournalFlush;
import io.tidestore.store.cache.PolicyConfig;
import io.tidestore.store.io.IoQueueConfig;
import java.net.InetAddress;
import java.nio.file.Path;

/**
 * The daemon's settings after flags, file and embedded defaults were merged and checked.
 *
 * @param confFile the settings file read, or null when running on embedded defaults
 * @param dataDir absolute data directory
 * @param listenAddress address every listener binds to
 * @param metricsPort HTTP port for /metrics and /status (0 = any free port)
 * @param pidFile where to write the pid once ready, or null
 * @param reactors reactor count; 0 means one per CPU the process may use
 * @param cpuPolicy how reactors are pinned
 * @param transport the Netty transport of the reactors
 * @param idlePoll how long reactors poll after work before they block (reactor engine only)
 * @param objectPort main port of the object protocol; reactor r also listens on objectPort+1+r (0 =
 *     any free ports)
 * @param nbdPort NBD port (0 = any free port)
 * @param nbdDefaultImage the image an NBD client gets when it asks for the empty export name
 * @param cacheBytes the extent cache of the whole daemon, split over the shards (0 = none)
 * @param cachePolicy the extent caches' replacement policy
 * @param cacheWriteMaxBytes the largest write whose blocks may evict to enter the extent cache
 * @param memoryLimitBytes the off-heap memory the daemon may reserve
 * @param mkfsShards shards of the store the daemon creates in an empty data directory
 * @param mkfsShardBytes bytes per shard of that store
 * @param engine the threading engine (reactor or classic) and the classic engine's threads
 * @param journalFlush how the store's journal makes a record durable
 * @param overprovisionPercent share of each shard's segments kept from users as cleaning headroom
 * @param maxInflightFrameBytes the bytes that incomplete inbound frames (object protocol frames,
 *     NBD write payloads) may hold, over all connections of both protocols
 * @param security TLS on the listeners, the clients' grants, and where admin HTTP listens
 * @param ioBackend the store's disk I/O: io_uring, FileChannel, or io_uring where it works
 * @param cleanerPolicy how the cleaner picks its victims
 * @param device the raw block device the store is on (formatted on first start), or null for a
 *     store of files in {@code dataDir}
 * @param scrub the online scrub's schedule and rate
 */
public record OsdSettings(
    Path confFile,
    Path dataDir,
    InetAddress listenAddress,
    int metricsPort,
    Path pidFile,
    int reactors,
    CpuPolicy cpuPolicy,
    Transport transport,
    IdlePoll idlePoll,
    int objectPort,
    int nbdPort,
    String nbdDefaultImage,
    long cacheBytes,
    PolicyConfig cachePolicy,
    long cacheWriteMaxBytes,
    long memoryLimitBytes,
    int mkfsShards,
    long mkfsShardBytes,
    EngineSettings engine,
    JournalFlush journalFlush,
    int overprovisionPercent,
    long maxInflightFrameBytes,
    SecuritySettings security,
    IoQueueConfig.Backend ioBackend,
    CleanerPolicy cleanerPolicy,
    Path device,
    ScrubSettings scrub) {

  /** The Prometheus exporter port of Ceph's mgr module, so dashboards find us where they look. */
  public static final int DEFAULT_METRICS_PORT = 9283;

  /** The first port of Ceph's OSD range (ms_bind_port_min), so firewalls already open it. */
  public static final int DEFAULT_OBJECT_PORT = 6800;
}
