package io.tidestore.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.tidestore.cluster.client.MonClient;
import io.tidestore.cluster.map.FailureDomain;
import io.tidestore.cluster.map.MapCommand;
import io.tidestore.cluster.map.PoolInfo;
import io.tidestore.cluster.wire.WireException;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code tidestore pool create|ls|rm}: the cluster's pools, through the monitors. */
@Command(
    name = "pool",
    mixinStandardHelpOptions = true,
    description = "The cluster's pools (through the monitors): create, ls, rm.",
    subcommands = {PoolCommand.Create.class, PoolCommand.Ls.class, PoolCommand.Rm.class})
final class PoolCommand {

  /** Runs a monitor request; a refusal or unreachable monitors become one line and exit 1. */
  static int run(CommandSpec spec, MonOptions mon, MonCall call) {
    try (MonClient client = mon.client(spec)) {
      return call.run(client);
    } catch (WireException e) {
      spec.commandLine().getErr().println(spec.qualifiedName() + ": " + e.getMessage());
      return 1;
    } catch (IOException e) {
      spec.commandLine().getErr().println(spec.qualifiedName() + ": " + e.getMessage());
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
  }

  @FunctionalInterface
  interface MonCall {
    int run(MonClient client) throws IOException, InterruptedException;
  }

  @Command(name = "create", mixinStandardHelpOptions = true, description = "Create a pool.")
  static final class Create implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin MonOptions mon = new MonOptions();

    @Parameters(index = "0", paramLabel = "NAME", description = "Pool name (A-Z a-z 0-9 _ . -).")
    String name;

    @Option(names = "--size", paramLabel = "N", required = true, description = "Replicas.")
    int size;

    @Option(
        names = "--min-size",
        paramLabel = "M",
        required = true,
        description = "Replicas below which a PG takes no writes.")
    int minSize;

    @Option(
        names = "--pg-num",
        paramLabel = "P",
        required = true,
        description = "Placement groups.")
    int pgNum;

    @Option(
        names = "--failure-domain",
        paramLabel = "osd|host",
        description = "What two replicas must not share. Default: the monitors' --failure-domain.")
    String failureDomain;

    @Override
    public Integer call() {
      FailureDomain domain;
      try {
        domain = failureDomain == null ? null : FailureDomain.parse(failureDomain);
      } catch (IllegalArgumentException e) {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
      return run(
          spec,
          mon,
          client -> {
            long epoch =
                client.poolCreate(new MapCommand.PoolCreate(name, size, minSize, pgNum, domain));
            spec.commandLine()
                .getOut()
                .println("pool '" + name + "' created (map epoch " + epoch + ")");
            return 0;
          });
    }
  }

  @Command(
      name = "ls",
      mixinStandardHelpOptions = true,
      description =
          "List the pools: names, one a line (as ceph osd pool ls); --detail or --format json for the rest.")
  static final class Ls implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin MonOptions mon = new MonOptions();

    @Option(names = "--detail", description = "Every setting of every pool.")
    boolean detail;

    @Option(names = "--format", paramLabel = "plain|json", description = "Default: plain.")
    String format = "plain";

    @Override
    public Integer call() {
      return run(
          spec,
          mon,
          client -> {
            var map = client.fetchMap();
            var out = spec.commandLine().getOut();
            if (format.equals("json")) {
              ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
              ArrayNode pools = json.createArrayNode();
              for (PoolInfo p : map.pools().values()) {
                pools
                    .addObject()
                    .put("pool_id", p.id())
                    .put("pool_name", p.name())
                    .put("size", p.size())
                    .put("min_size", p.minSize())
                    .put("pg_num", p.pgNum())
                    .put("failure_domain", p.failureDomain().label());
              }
              out.println(json.writeValueAsString(pools));
              return 0;
            }
            for (PoolInfo p : map.pools().values()) {
              out.println(
                  detail
                      ? "pool "
                          + p.id()
                          + " '"
                          + p.name()
                          + "' replicated size "
                          + p.size()
                          + " min_size "
                          + p.minSize()
                          + " pg_num "
                          + p.pgNum()
                          + " failure_domain "
                          + p.failureDomain().label()
                      : p.name());
            }
            return 0;
          });
    }
  }

  @Command(name = "rm", mixinStandardHelpOptions = true, description = "Remove a pool.")
  static final class Rm implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin MonOptions mon = new MonOptions();

    @Parameters(index = "0", paramLabel = "NAME", description = "Pool name.")
    String name;

    @Override
    public Integer call() {
      return run(
          spec,
          mon,
          client -> {
            long epoch = client.poolRemove(name);
            spec.commandLine()
                .getOut()
                .println("pool '" + name + "' removed (map epoch " + epoch + ")");
            return 0;
          });
    }
  }
}
