package io.tidestore.cli;

import io.tidestore.osd.OsdDaemon;
import io.tidestore.osd.OsdSettings;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
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
    sortOptions = false)
final class OsdCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

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
      names = "--pid-file",
      paramLabel = "FILE",
      description = "Write the daemon's pid here once it is ready; removed on a clean stop.")
  Path pidFile;

  @Override
  public Integer call() throws Exception {
    OsdSettings settings = settings();
    try (OsdDaemon daemon = OsdDaemon.start(settings)) {
      daemon.awaitShutdownSignal();
    } catch (java.io.IOException e) {
      // Startup failures a user can act on (data dir in use, port taken): one clear line.
      spec.commandLine().getErr().println("tidestore osd: cannot start: " + e.getMessage());
      return 1;
    }
    return 0;
  }

  private OsdSettings settings() {
    checkPort("--metrics-port", metricsPort);
    InetAddress address;
    try {
      address = InetAddress.getByName(listen);
    } catch (java.net.UnknownHostException e) {
      throw new ParameterException(
          spec.commandLine(), "Invalid value for option '--listen': unknown host '" + listen + "'");
    }
    return new OsdSettings(
        conf == null ? null : conf.toAbsolutePath(),
        data.toAbsolutePath().normalize(),
        address,
        metricsPort,
        pidFile == null ? null : pidFile.toAbsolutePath());
  }

  private void checkPort(String option, int port) {
    if (port < 0 || port > 65535) {
      throw new ParameterException(
          spec.commandLine(),
          "Invalid value for option '" + option + "': " + port + " is not a port (0-65535)");
    }
  }
}
