package io.tidestore.cli;

import io.tidestore.bench.job.ByteSize;
import io.tidestore.osd.EngineSettings;
import io.tidestore.osd.EngineSettings.EngineKind;
import io.tidestore.osd.OsdDaemon;
import io.tidestore.osd.OsdSettings;
import io.tidestore.osd.ScrubSettings;
import io.tidestore.osd.cluster.ClusterSettings;
import io.tidestore.osd.cpu.CpuPolicy;
import io.tidestore.osd.reactor.IdlePoll;
import io.tidestore.osd.reactor.Transport;
import io.tidestore.osd.security.ListenPolicy;
import io.tidestore.osd.security.SecuritySettings;
import io.tidestore.store.api.CleanerPolicy;
import io.tidestore.store.api.JournalFlush;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.cache.PolicyConfig;
import io.tidestore.store.engine.StoreFormat;
import io.tidestore.store.io.IoQueueConfig;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tidestore osd}: runs the daemon in the foreground until SIGTERM or SIGINT. Every option
 * can also be set in a {@code --conf} file under its long name without dashes; flags win.
 */
@Command(
    name = "osd",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description = {
      "Run the object storage daemon in the foreground; SIGTERM or SIGINT stops it cleanly.",
      "Every option can be set in a --conf file as 'key = value' (e.g. 'data = /srv/osd.0');"
          + " flags override the file."
    },
    sortOptions = false,
    subcommands = {OsdMapCommand.class})
final class OsdCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin TlsOptions tlsOptions = new TlsOptions();
  @Mixin ScrubOptions scrubOptions = new ScrubOptions();
  @Mixin EngineOptions engineOptions = new EngineOptions();
  @Mixin ClusterJoinOptions clusterOptions = new ClusterJoinOptions();

  @Option(
      names = "--conf",
      paramLabel = "FILE",
      description = "Settings file (conf/tidestore.conf style). Default: none, embedded defaults.")
  Path conf;

  @Option(
      names = "--data",
      paramLabel = "DIR",
      description = "Data directory, created if missing. Default: ${DEFAULT-VALUE}.")
  Path data = Path.of("var", "osd.0");

  @Option(
      names = "--listen",
      paramLabel = "ADDR",
      description = "Address every listener binds to. Default: ${DEFAULT-VALUE} (loopback only).")
  String listen = "127.0.0.1";

  @Option(
      names = "--metrics-port",
      paramLabel = "PORT",
      description =
          "HTTP port for /metrics (Prometheus text) and /status; 0 picks a free port."
              + " Default: ${DEFAULT-VALUE}.")
  int metricsPort = OsdSettings.DEFAULT_METRICS_PORT;

  @Option(
      names = "--port",
      paramLabel = "PORT",
      description =
          "Object protocol main port; reactor N also listens on PORT+1+N (0: any free ports)."
              + " Default: ${DEFAULT-VALUE}, as Ceph OSDs.")
  int port = OsdSettings.DEFAULT_OBJECT_PORT;

  @Option(
      names = "--nbd-port",
      paramLabel = "PORT",
      description = "NBD gateway port (0 picks a free port). Default: ${DEFAULT-VALUE}.")
  int nbdPort = OsdDefaults.NBD_PORT;

  @Option(
      names = "--nbd-default-image",
      paramLabel = "NAME",
      description =
          "Image served to NBD clients that ask for the empty export name. Default: ${DEFAULT-VALUE}.")
  String nbdDefaultImage = "default";

  @Option(
      names = "--reactors",
      paramLabel = "N",
      description = "Reactor (event loop) threads. Default: one per CPU this process may use.")
  int reactors;

  @Option(
      names = "--cpu-policy",
      paramLabel = "POLICY",
      converter = CpuPolicyConverter.class,
      description =
          "Reactor pinning: balanced (one per physical core, spread over NUMA nodes, hyperthread"
              + " siblings last) or none. Default: ${DEFAULT-VALUE}.")
  CpuPolicy cpuPolicy = CpuPolicy.BALANCED;

  @Option(
      names = "--transport",
      paramLabel = "epoll|io_uring",
      converter = TransportConverter.class,
      description =
          "Netty transport of the reactors; both carry the store's io_uring queues. Default: epoll"
              + " (docs/engines.md compares them).")
  Transport transport = Transport.EPOLL;

  @Option(
      names = "--reactor-idle-poll-us",
      paramLabel = "US|always",
      converter = IdlePollConverter.class,
      description =
          "How long a reactor keeps polling after its last work before it sleeps in the kernel: 0"
              + " sleeps at once (an idle reactor costs no CPU), 'always' never sleeps (Seastar's"
              + " busy poll: a whole core per reactor). Reactor engine only. Default: 0.")
  IdlePoll idlePoll = IdlePoll.NONE;

  @Option(
      names = "--cache-size",
      paramLabel = "BYTES",
      description =
          "Off-heap extent cache of the whole daemon, split evenly over the store's shards"
              + " (e.g. 512m, 2g; 0 = none). Default: ${DEFAULT-VALUE}.")
  String cacheSize = "1g";

  @Option(
      names = "--cache-policy",
      paramLabel = "lru|2q",
      description =
          "Extent cache replacement policy: lru, or 2q (Johnson & Shasha, with SeaStore's"
              + " sequential-continuation rule). Default: ${DEFAULT-VALUE}.")
  String cachePolicy = "2q";

  @Option(
      names = "--cache-write-max",
      paramLabel = "BYTES",
      description =
          "Largest write whose blocks may push cached blocks out to enter the extent cache once"
              + " durable; a larger write's blocks enter only free cache memory, else they only"
              + " drop the cached copies they replace (0: no write evicts). Default:"
              + " ${DEFAULT-VALUE}.")
  String cacheWriteMax = "32k";

  @Option(
      names = "--journal-flush",
      paramLabel = "auto|fdatasync|dsync",
      description =
          "How a journal record becomes durable before its writes are acknowledged: fdatasync"
              + " (plain writes; one fdatasync covers every record completed before it, for all"
              + " the shards of a reactor when the store is one volume or device), dsync (each"
              + " record one RWF_DSYNC write), or auto (fdatasync on a volume or device with the"
              + " reactor engine, dsync on a store of shard files and with --engine classic). See"
              + " docs/benchmarks.md \"One flush for the shards of a reactor\"."
              + " Default: ${DEFAULT-VALUE}.")
  String journalFlush = "auto";

  @Option(
      names = "--overprovision",
      paramLabel = "PERCENT",
      description =
          "Share of each shard's segments kept from users as cleaning headroom, as an SSD keeps"
              + " spare flash: the store's capacity is the rest, and writes past it get NO_SPACE."
              + " More headroom, cheaper cleaning of a full store (see docs/format.md"
              + " \"Capacity\"). 0-90. Default: ${DEFAULT-VALUE}.")
  int overprovision = StoreConfig.DEFAULT_OVERPROVISION_PERCENT;

  @Option(
      names = "--device",
      paramLabel = "DEV",
      description =
          "Keep the store on this raw block device (formatted on first start when --data is"
              + " empty: everything on it is lost; --shards applies, --shard-size does not).")
  Path device;

  @Option(
      names = "--io-backend",
      paramLabel = "auto|io_uring|filechannel",
      description =
          "The store's disk I/O (not the sockets: that is --transport): io_uring, FileChannel"
              + " threads, or auto (io_uring where the kernel allows it). io_uring refuses to"
              + " start without it. Default: ${DEFAULT-VALUE}.")
  String ioBackend = "auto";

  @Option(
      names = "--cleaner-policy",
      paramLabel = "greedy|cost-benefit",
      description =
          "How the cleaner picks the segment to reclaim: greedy (fewest live blocks) or"
              + " cost-benefit (LFS: cold, mostly empty segments first). Default: ${DEFAULT-VALUE}.")
  String cleanerPolicy = "greedy";

  @Option(
      names = "--memory-limit",
      paramLabel = "BYTES",
      description =
          "Off-heap memory the daemon may reserve (extent cache, I/O buffers, index);"
              + " more is a startup error, not an OOM kill. Default: ${DEFAULT-VALUE}.")
  String memoryLimit = "4g";

  @Option(
      names = "--max-inflight-frame-bytes",
      paramLabel = "BYTES",
      description =
          "Memory that partly received requests (object protocol frames and NBD write payloads"
              + " over 64 KiB) may hold, over all connections: past it the server stops reading"
              + " the connections whose large request does not fit until others complete. One"
              + " request larger than this is still taken alone. Default: ${DEFAULT-VALUE}.")
  String maxInflightFrameBytes = "256m";

  @Option(
      names = "--shards",
      paramLabel = "S",
      description =
          "Shards of the store created when the data directory is empty or absent, or left"
              + " incomplete by an interrupted mkfs (an existing store keeps its own). Default:"
              + " ${DEFAULT-VALUE}.")
  int shards = StoreFormat.DEFAULT_SHARDS;

  @Option(
      names = "--shard-size",
      paramLabel = "BYTES",
      description =
          "Bytes per shard of the store created when the data directory is empty or absent,"
              + " or left incomplete by an interrupted mkfs. Default: ${DEFAULT-VALUE}.")
  String shardSize = "1g";

  @Option(
      names = "--pid-file",
      paramLabel = "FILE",
      description = "Write the daemon's pid here once it is ready; removed on a clean stop.")
  Path pidFile;

  @Option(
      names = "--exit-with-parent",
      description =
          "Stop cleanly (as on SIGTERM) when the process that started this daemon exits, even by"
              + " SIGKILL: for daemons that tools such as `tidestore demo` start and own.")
  boolean exitWithParent;

  @Override
  public Integer call() throws Exception {
    OsdSettings settings = settings();
    ClusterSettings cluster = clusterOptions.settings(spec);
    try (OsdDaemon daemon =
        OsdDaemon.start(settings, ClusterJoinOptions.withTls(cluster, settings.security()))) {
      if (exitWithParent) {
        // A parent killed by SIGKILL runs no cleanup of its own; without this its daemon would
        // keep the data directory locked and the ports bound forever.
        ProcessHandle.current()
            .parent()
            .ifPresent(
                parent ->
                    parent
                        .onExit()
                        .thenRun(
                            () -> {
                              System.err.println(
                                  "tidestore osd: parent process "
                                      + parent.pid()
                                      + " exited; stopping");
                              daemon.requestStop();
                            }));
      }
      daemon.awaitShutdownSignal();
    } catch (java.io.IOException e) {
      // Startup failures a user can act on (data dir in use, port taken): one clear line.
      spec.commandLine().getErr().println("tidestore osd: cannot start: " + IoErrors.describe(e));
      return 1;
    }
    return 0;
  }

  private OsdSettings settings() {
    long cacheBytes = bytes("--cache-size", cacheSize);
    long limitBytes = bytes("--memory-limit", memoryLimit);
    if (cacheBytes > limitBytes) {
      throw new ParameterException(
          spec.commandLine(),
          "--cache-size " + cacheSize + " does not fit --memory-limit " + memoryLimit);
    }
    long cacheWriteMaxBytes = bytes("--cache-write-max", cacheWriteMax);
    if (cacheWriteMaxBytes < 0) {
      throw new ParameterException(
          spec.commandLine(),
          "Invalid value for option '--cache-write-max': " + cacheWriteMax + " (must be >= 0)");
    }
    long inflightFrameBytes = bytes("--max-inflight-frame-bytes", maxInflightFrameBytes);
    if (inflightFrameBytes <= 0) {
      throw new ParameterException(
          spec.commandLine(),
          "Invalid value for option '--max-inflight-frame-bytes': "
              + maxInflightFrameBytes
              + " (must be more than 0)");
    }
    PolicyConfig policy =
        switch (cachePolicy) {
          case "lru" -> PolicyConfig.lru();
          case "2q" -> PolicyConfig.daemonDefault();
          default ->
              throw new ParameterException(
                  spec.commandLine(),
                  "Invalid value for option '--cache-policy': '" + cachePolicy + "' (lru or 2q)");
        };
    checkPort("--metrics-port", metricsPort);
    checkPort("--port", port);
    checkPort("--nbd-port", nbdPort);
    if (reactors < 0 || reactors > 1024) {
      throw new ParameterException(
          spec.commandLine(),
          "Invalid value for option '--reactors': " + reactors + " (1-1024, or 0 for one per CPU)");
    }
    long shardBytes = bytes("--shard-size", shardSize);
    try {
      StoreFormat.checkGeometry(shards, shardBytes, StoreFormat.defaultSegmentBytes(shardBytes));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          spec.commandLine(), "Invalid --shards/--shard-size for a new store: " + e.getMessage());
    }
    EngineSettings engineSettings;
    try {
      engineSettings = engineOptions.settings();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    JournalFlush flush;
    try {
      flush = JournalFlush.parse(journalFlush);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          spec.commandLine(), "Invalid value for option '--journal-flush': " + e.getMessage());
    }
    if (idlePoll.nanos() != 0 && engineSettings.kind() == EngineKind.CLASSIC) {
      throw new ParameterException(
          spec.commandLine(), "--reactor-idle-poll-us applies to --engine reactor only");
    }
    if (flush == JournalFlush.AUTO && engineSettings.kind() == EngineKind.CLASSIC) {
      // Each classic shard has an I/O queue of its own: no group shares a flush. Not measured.
      flush = JournalFlush.RECORD_DSYNC;
    }
    if (overprovision < 0 || overprovision > 90) {
      throw new ParameterException(
          spec.commandLine(),
          "Invalid value for option '--overprovision': " + overprovision + " (0-90 percent)");
    }
    InetAddress address;
    try {
      address = InetAddress.getByName(listen);
    } catch (java.net.UnknownHostException e) {
      throw new ParameterException(
          spec.commandLine(), "Invalid value for option '--listen': unknown host '" + listen + "'");
    }
    IoQueueConfig.Backend backend;
    CleanerPolicy cleaner;
    try {
      backend = IoQueueConfig.Backend.parse(ioBackend);
      cleaner = CleanerPolicy.parse(cleanerPolicy);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          spec.commandLine(), "Invalid --io-backend or --cleaner-policy: " + e.getMessage());
    }
    ScrubSettings scrub;
    try {
      scrub = scrubOptions.settings();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    SecuritySettings security;
    try {
      security = tlsOptions.settings();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    String refusal = ListenPolicy.refusal(address, security);
    if (refusal != null) {
      throw new ParameterException(spec.commandLine(), refusal);
    }
    return new OsdSettings(
        conf == null ? null : conf.toAbsolutePath(),
        data.toAbsolutePath().normalize(),
        address,
        metricsPort,
        pidFile == null ? null : pidFile.toAbsolutePath(),
        reactors,
        cpuPolicy,
        transport,
        idlePoll,
        port,
        nbdPort,
        nbdDefaultImage,
        cacheBytes,
        policy,
        cacheWriteMaxBytes,
        limitBytes,
        shards,
        shardBytes,
        engineSettings,
        flush,
        overprovision,
        inflightFrameBytes,
        security,
        backend,
        cleaner,
        device == null ? null : device.toAbsolutePath(),
        scrub);
  }

  private long bytes(String option, String value) {
    try {
      return ByteSize.parse(value);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          spec.commandLine(), "Invalid value for option '" + option + "': " + e.getMessage());
    }
  }

  private void checkPort(String option, int port) {
    if (port < 0 || port > 65535) {
      throw new ParameterException(
          spec.commandLine(),
          "Invalid value for option '" + option + "': " + port + " is not a port (0-65535)");
    }
  }

  static final class CpuPolicyConverter implements picocli.CommandLine.ITypeConverter<CpuPolicy> {
    @Override
    public CpuPolicy convert(String value) {
      try {
        return CpuPolicy.parse(value);
      } catch (IllegalArgumentException e) {
        throw new picocli.CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  static final class TransportConverter implements picocli.CommandLine.ITypeConverter<Transport> {
    @Override
    public Transport convert(String value) {
      try {
        return Transport.parse(value);
      } catch (IllegalArgumentException e) {
        throw new picocli.CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }
}
