package io.tidestore.cli;

import io.tidestore.bench.job.FioJob;
import io.tidestore.bench.load.BenchJobs;
import io.tidestore.bench.load.FioLikeJson;
import io.tidestore.bench.load.NativeBench;
import io.tidestore.osd.BuildInfo;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tidestore bench}: a load generator over the native client and the image layer, like fio's
 * rbd engine over librbd, driven by fio job files or fio's options as flags.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description = {
      "Run fio jobs over the native shard-aware client against Tidestore images: latencies in"
          + " HdrHistogram, output as fio's JSON (--output-format json) and a one-line summary.",
      "Job files may use: rw, rwmixread, bs, iodepth, numjobs, size, runtime, ramp_time,"
          + " time_based, random_distribution (random, zipf, zoned, normal), filename/rbdname/uri"
          + " (the image); other options are refused by name.",
      "Examples:",
      "  tidestore bench conf/workloads/randread4k.fio --image bench0",
      "  tidestore bench --rw randwrite --bs 4k --iodepth 16 --runtime 10 --time-based"
          + " --image bench0"
    },
    sortOptions = false)
final class BenchCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(arity = "0..1", paramLabel = "JOBFILE", description = "A fio job file.")
  Path jobFile;

  @Option(names = "--rw", description = "read, write, randread, randwrite, rw, randrw.")
  String rw;

  @Option(names = "--rwmixread", paramLabel = "PERCENT", description = "Reads in rw/randrw.")
  Integer rwmixread;

  @Option(names = "--bs", paramLabel = "SIZE", description = "Block size, e.g. 4k.")
  String bs;

  @Option(names = "--iodepth", paramLabel = "N", description = "Ops in flight per job.")
  Integer iodepth;

  @Option(names = "--numjobs", paramLabel = "N", description = "Parallel jobs.")
  Integer numjobs;

  @Option(names = "--size", paramLabel = "SIZE", description = "Bytes of the image to use.")
  String size;

  @Option(names = "--runtime", paramLabel = "TIME", description = "Run time, e.g. 30 or 30s.")
  String runtime;

  @Option(names = "--ramp-time", paramLabel = "TIME", description = "Warm-up, excluded.")
  String rampTime;

  @Option(names = "--time-based", description = "Run for the runtime even after covering size.")
  boolean timeBased;

  @Option(
      names = "--random-distribution",
      paramLabel = "DIST",
      description = "random, zipf:THETA, normal:DEV, zoned:A/R:...")
  String randomDistribution;

  @Option(
      names = "--image",
      paramLabel = "NAME",
      description = "Image for jobs that name none (fio's filename).")
  String image;

  @Option(
      names = "--osd",
      paramLabel = "HOST:PORT",
      description = "The OSD's object protocol address. Default: ${DEFAULT-VALUE}.")
  String osd = "127.0.0.1:6800";

  @Mixin ClientTlsOptions tls = new ClientTlsOptions();

  @Option(
      names = "--client-threads",
      paramLabel = "N",
      description = "Client event loop threads. Default: ${DEFAULT-VALUE}.")
  int clientThreads = 1;

  @Option(names = "--seed", paramLabel = "N", description = "Random seed. Default: 1.")
  long seed = 1;

  @Option(
      names = "--output-format",
      paramLabel = "FORMAT",
      description = "normal (the summary line) or json (fio's). Default: ${DEFAULT-VALUE}.")
  String outputFormat = "normal";

  @Option(names = "--output", paramLabel = "FILE", description = "Write the output here.")
  Path output;

  @Override
  public Integer call() throws Exception {
    if (!outputFormat.equals("normal") && !outputFormat.equals("json")) {
      throw new ParameterException(
          spec.commandLine(), "--output-format must be normal or json, got " + outputFormat);
    }
    if (clientThreads < 1) {
      throw new ParameterException(spec.commandLine(), "--client-threads must be at least 1");
    }
    List<FioJob> jobs;
    try {
      jobs = BenchJobs.resolve(jobFile, overrides());
    } catch (IllegalArgumentException | IOException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    NativeBench.Outcome outcome;
    try {
      outcome =
          NativeBench.run(
              jobs,
              image,
              new NativeBench.Settings(address(), clientThreads, seed, tls.objectProtocol()));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    } catch (IOException e) {
      spec.commandLine().getErr().println("tidestore bench: " + e.getMessage());
      return 1;
    }
    String summary = FioLikeJson.summary(outcome);
    String text =
        outputFormat.equals("json")
            ? FioLikeJson.render(outcome, "tidestore-bench " + BuildInfo.version()).toPrettyString()
            : summary;
    PrintWriter out = spec.commandLine().getOut();
    if (output != null) {
      Files.writeString(output, text + "\n", StandardCharsets.UTF_8);
      out.println(summary);
    } else {
      out.println(text);
      if (outputFormat.equals("json")) {
        spec.commandLine().getErr().println(summary);
      }
    }
    out.flush();
    return 0;
  }

  /** The flags given, under fio's option names. */
  private Map<String, String> overrides() {
    Map<String, String> o = new LinkedHashMap<>();
    put(o, "rw", rw);
    put(o, "rwmixread", rwmixread);
    put(o, "bs", bs);
    put(o, "iodepth", iodepth);
    put(o, "numjobs", numjobs);
    put(o, "size", size);
    put(o, "runtime", runtime);
    put(o, "ramp_time", rampTime);
    if (timeBased) {
      o.put("time_based", "1");
    }
    put(o, "random_distribution", randomDistribution);
    return o;
  }

  private static void put(Map<String, String> o, String key, Object value) {
    if (value != null) {
      o.put(key, value.toString());
    }
  }

  private InetSocketAddress address() {
    int colon = osd.lastIndexOf(':');
    try {
      if (colon > 0) {
        return new InetSocketAddress(
            osd.substring(0, colon), Integer.parseInt(osd.substring(colon + 1)));
      }
    } catch (NumberFormatException e) {
      // falls through to the usage error
    }
    throw new ParameterException(spec.commandLine(), "--osd wants HOST:PORT, got " + osd);
  }
}
