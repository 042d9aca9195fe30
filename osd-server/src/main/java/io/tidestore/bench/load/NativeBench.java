package io.tidestore.bench.load;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.tidestore.bench.job.FioJob;
import io.tidestore.client.ShardAwareClient;
import io.tidestore.osd.image.ImageHeaders;
import io.tidestore.osd.protocol.OpException;
import io.tidestore.osd.protocol.Status;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.HdrHistogram.Histogram;

/**
 * {@code tidestore bench}'s engine: fio jobs run over the native, shard-aware object client against
 * images (like fio's rbd engine over librbd). Every job of a file runs at the same time, {@code
 * numjobs} workers each; the ramp is run and discarded, then latencies and I/O counts are taken
 * over the measured window.
 */
public final class NativeBench {
  /** How long stopped workers may take to see their last ops complete. */
  private static final long DRAIN_MILLIS = 30_000;

  /**
   * @param osd the OSD's object protocol address
   * @param clientThreads event loop threads of the client (1 keeps every completion on one thread)
   * @param seed the first worker's random seed; worker i uses seed + i
   * @param tls the client's TLS context, or null for plaintext
   */
  public record Settings(InetSocketAddress osd, int clientThreads, long seed, SslContext tls) {}

  /**
   * What one fio job section measured, its workers merged.
   *
   * @param job the job
   * @param image the image it ran against
   * @param reads read completion latencies (ns) in the measured window
   * @param writes write completion latencies (ns) in the measured window
   */
  public record JobResult(FioJob job, String image, Histogram reads, Histogram writes) {}

  /**
   * A whole run.
   *
   * @param jobs per job section, in file order
   * @param seconds the measured window
   * @param usrCpu the generator process's user CPU over the window, percent of one core
   * @param sysCpu its system CPU, percent of one core
   * @param windowStartEpochMs wall-clock start of the measured window
   * @param windowEndEpochMs wall-clock end of the measured window
   */
  public record Outcome(
      List<JobResult> jobs,
      double seconds,
      double usrCpu,
      double sysCpu,
      long windowStartEpochMs,
      long windowEndEpochMs) {}

  private NativeBench() {}

  /**
   * Runs {@code jobs}; a job without a target uses {@code defaultImage}. Throws {@link
   * IllegalArgumentException} for jobs it cannot run and {@link IOException} when the OSD fails.
   */
  public static Outcome run(List<FioJob> jobs, String defaultImage, Settings settings)
      throws IOException, InterruptedException {
    checkTiming(jobs);
    MultiThreadIoEventLoopGroup group =
        new MultiThreadIoEventLoopGroup(settings.clientThreads(), NioIoHandler.newFactory());
    try (ShardAwareClient client = connect(group, settings.osd(), settings.tls())) {
      Map<String, ImageTarget> images = new HashMap<>();
      List<List<BenchWorker>> workers = new ArrayList<>();
      long seed = settings.seed();
      for (FioJob job : jobs) {
        String name = job.target() != null ? job.target() : defaultImage;
        if (name == null) {
          throw new IllegalArgumentException(
              "job " + job.name() + " names no image: give --image or filename= in the job file");
        }
        ImageTarget image = images.get(name);
        if (image == null) {
          image = ImageTarget.of(name, imageSize(client, name, settings.osd()));
          images.put(name, image);
        }
        long span = checkFits(job, image);
        long bytesLimit = job.timeBased() ? Long.MAX_VALUE : span;
        List<BenchWorker> instances = new ArrayList<>();
        for (int i = 0; i < job.numjobs(); i++) {
          instances.add(
              new BenchWorker(
                  job, client, image, span, bytesLimit, seed++, PooledByteBufAllocator.DEFAULT));
        }
        workers.add(instances);
      }
      List<BenchWorker> all = workers.stream().flatMap(List::stream).toList();
      try {
        return measure(jobs, defaultImage, workers, all);
      } finally {
        for (BenchWorker w : all) {
          w.stop();
        }
        boolean drained = true;
        for (BenchWorker w : all) {
          drained &= w.awaitIdle(DRAIN_MILLIS);
        }
        if (drained) {
          all.forEach(BenchWorker::release);
        }
      }
    } finally {
      group.shutdownGracefully(20, 2000, TimeUnit.MILLISECONDS).syncUninterruptibly();
    }
  }

  private static Outcome measure(
      List<FioJob> jobs,
      String defaultImage,
      List<List<BenchWorker>> workers,
      List<BenchWorker> all)
      throws IOException, InterruptedException {
    FioJob first = jobs.getFirst();
    long start = System.nanoTime();
    all.forEach(BenchWorker::start);
    awaitFinishedOr(all, start + seconds(first.rampSeconds()));
    for (BenchWorker w : all) {
      w.reads.reset();
      w.writes.reset();
    }
    ProcessCpu cpuBefore = ProcessCpu.now();
    long windowStart = System.currentTimeMillis();
    long measureStart = System.nanoTime();
    long measureEnd =
        first.runtimeSeconds() > 0
            ? measureStart + seconds(first.runtimeSeconds())
            : Long.MAX_VALUE;
    awaitFinishedOr(all, measureEnd);
    long end = System.nanoTime();
    long windowEnd = System.currentTimeMillis();
    ProcessCpu cpuAfter = ProcessCpu.now();
    List<JobResult> results = new ArrayList<>();
    for (int j = 0; j < jobs.size(); j++) {
      Histogram reads = null;
      Histogram writes = null;
      for (BenchWorker w : workers.get(j)) {
        reads = merge(reads, w.reads.getIntervalHistogram());
        writes = merge(writes, w.writes.getIntervalHistogram());
      }
      FioJob job = jobs.get(j);
      results.add(
          new JobResult(job, job.target() != null ? job.target() : defaultImage, reads, writes));
    }
    for (BenchWorker w : all) {
      if (w.failure() != null) {
        throw new IOException("I/O failed: " + w.failure().getMessage(), w.failure());
      }
    }
    double window = (end - measureStart) / 1e9;
    return new Outcome(
        results,
        window,
        cpuAfter.userPercentSince(cpuBefore, window),
        cpuAfter.systemPercentSince(cpuBefore, window),
        windowStart,
        windowEnd);
  }

  /** fio lets jobs differ in timing; the native bench runs one window for all, so they must not. */
  private static void checkTiming(List<FioJob> jobs) {
    FioJob first = jobs.getFirst();
    for (FioJob job : jobs) {
      if (job.runtimeSeconds() != first.runtimeSeconds()
          || job.rampSeconds() != first.rampSeconds()
          || job.timeBased() != first.timeBased()) {
        throw new IllegalArgumentException(
            "jobs "
                + first.name()
                + " and "
                + job.name()
                + " differ in runtime, ramp_time or time_based; tidestore bench runs all jobs of"
                + " a file in one window");
      }
    }
  }

  /** The bytes the job covers; rejects blocks that would straddle objects or a too-large size. */
  private static long checkFits(FioJob job, ImageTarget image) {
    int objectSize = image.layout().objectSize();
    if (job.blockSize() > objectSize || objectSize % job.blockSize() != 0) {
      throw new IllegalArgumentException(
          "job "
              + job.name()
              + ": bs="
              + job.blockSize()
              + " must divide the image's object size "
              + objectSize
              + " (so no I/O straddles two objects)");
    }
    long span = job.size() == 0 ? image.size() : job.size();
    if (span > image.size()) {
      throw new IllegalArgumentException(
          "job "
              + job.name()
              + ": size="
              + span
              + " exceeds image "
              + image.name()
              + " of "
              + image.size()
              + " bytes");
    }
    return span;
  }

  private static void awaitFinishedOr(List<BenchWorker> all, long deadlineNanos)
      throws InterruptedException {
    for (BenchWorker w : all) {
      long left = deadlineNanos - System.nanoTime();
      if (deadlineNanos == Long.MAX_VALUE) {
        while (!w.awaitIdle(1000)) {
          // No runtime: run until the job's bytes are done.
        }
      } else if (left <= 0 || !w.awaitIdle(TimeUnit.NANOSECONDS.toMillis(left) + 1)) {
        return;
      }
    }
  }

  private static Histogram merge(Histogram into, Histogram more) {
    if (into == null) {
      return more;
    }
    into.add(more);
    return into;
  }

  private static long seconds(double s) {
    return (long) (s * 1e9);
  }

  private static ShardAwareClient connect(
      MultiThreadIoEventLoopGroup group, InetSocketAddress osd, SslContext tls)
      throws IOException, InterruptedException {
    try {
      return ShardAwareClient.connect(group, NioSocketChannel.class, osd, tls)
          .get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new IOException(
          "cannot reach the OSD at " + osd + ": " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new IOException("cannot reach the OSD at " + osd + ": no answer in 30 s", e);
    }
  }

  private static long imageSize(ShardAwareClient client, String name, InetSocketAddress osd)
      throws IOException, InterruptedException {
    if (!ImageHeaders.validName(name)) {
      throw new IllegalArgumentException("'" + name + "' is not an image name ([A-Za-z0-9_-])");
    }
    try {
      ByteBuf value =
          client
              .getXattr(ImageHeaders.headerObject(name), ImageHeaders.SIZE_XATTR)
              .get(30, TimeUnit.SECONDS);
      try {
        long size = ImageHeaders.size(value);
        if (size <= 0) {
          throw new IOException("image " + name + " has a malformed or zero size");
        }
        return size;
      } finally {
        value.release();
      }
    } catch (ExecutionException e) {
      if (e.getCause() instanceof OpException op
          && (op.status() == Status.ENOENT || op.status() == Status.ENODATA)) {
        throw new IllegalArgumentException(
            "no image '"
                + name
                + "' on the OSD at "
                + osd
                + " (tidestore image create "
                + name
                + " --size 1G)");
      }
      throw new IOException("reading image " + name + ": " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new IOException("reading image " + name + ": no reply in 30 s", e);
    }
  }
}
