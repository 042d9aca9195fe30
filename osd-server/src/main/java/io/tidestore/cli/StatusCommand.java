package io.tidestore.cli;

import io.tidestore.cluster.client.ClusterStatus;
import io.tidestore.cluster.local.LocalCluster;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code tidestore status}: the cluster's status, as {@code ceph -s}. */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description = {
      "The CLUSTER's status, as ceph -s: health, monitors and quorum, OSDs up/in, pools and PGs,"
          + " map epoch (asked of the monitors). One daemon's own status is `tidestore admin"
          + " status`.",
      "PG states come from the map alone until peering lands (issue 17, stop 4): 'undersized'"
          + " when fewer OSDs are up than the pool's min_size, else 'unknown'."
    })
final class StatusCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin MonOptions mon = new MonOptions();

  @Option(
      names = "--format",
      paramLabel = "plain|json",
      description = "json: the field names of `ceph status -f json`. Default: plain.")
  String format = "plain";

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      description = "A `tidestore cluster up` directory: its monitors, when --mon is not given.")
  Path dir;

  @Override
  public Integer call() throws Exception {
    if (!format.equals("plain") && !format.equals("json")) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(),
          "Invalid value for option '--format': " + format + " (plain or json)");
    }
    if (mon.mon == null && dir != null) {
      LocalCluster cluster = LocalCluster.read(dir);
      mon.mon = cluster.monitors();
      if (mon.tls.directory() == null) {
        mon.tls.certificates = cluster.certificates(); // cluster up --tls: its admin client
      }
    }
    return PoolCommand.run(
        spec,
        mon,
        client -> {
          ClusterStatus status = ClusterStatus.gather(client, mon.addresses(spec));
          var out = spec.commandLine().getOut();
          out.print(format.equals("json") ? status.json() + "\n" : status.text());
          out.flush();
          return 0;
        });
  }
}
