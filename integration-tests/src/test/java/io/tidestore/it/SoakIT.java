package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The soak of issue 21 (docs/reliability.md, "Soak"): a real daemon serves NBD connections and
 * object-protocol connections, each a verified writer and reader of its own blocks or objects, for
 * a while; every sample period records the ops, failures and latency percentiles, and the daemon's
 * resident memory, threads and open files. No op may fail or read back anything but what was last
 * acknowledged, and no period may pass without ops. In a long run (10 minutes or more) the daemon
 * must also, after the warm-up, keep the floor of its threads and open files (the last third of the
 * run's lowest count no higher than the first third's) and grow its resident memory by less than 1
 * MiB per 10 minutes.
 *
 * <p>In the suite it runs 20 s with 100 + 20 connections; {@code bin/soak} runs the 30
 * minutes with 1,000 + 200 ({@code -Dtidestore.soak.minutes}, {@code .nbd}, {@code .objects},
 * {@code .think-ms}, {@code .warmup-minutes}, {@code .out}).
 */
class SoakIT {
  private static final Duration START = Duration.ofSeconds(60);
  private static final int IMAGES = 10;
  private static final long IMAGE_BYTES = 64L << 20;

  @TempDir Path dir;

  @Test
  void verifiedLoadOnManyConnectionsFailsNothingAndLeaksNothing() throws Exception {
    double minutes = Double.parseDouble(System.getProperty("tidestore.soak.minutes", "0.34"));
    int nbd = Integer.getInteger("tidestore.soak.nbd", 100);
    int objects = Integer.getInteger("tidestore.soak.objects", 20);
    long thinkMillis = Long.getLong("tidestore.soak.think-ms", 100);
    boolean longRun = minutes >= 10;
    double warmupMinutes =
        Double.parseDouble(
            System.getProperty("tidestore.soak.warmup-minutes", longRun ? "5" : "0"));
    long periodSeconds = longRun ? 10 : 2;
    Path out = Path.of(System.getProperty("tidestore.soak.out", "target/soak"));

    Path data = dir.resolve("osd");
    try (OsdProcess mkfs =
        OsdProcess.start(
            "mkfs", "--data", data.toString(), "--shards", "2", "--shard-size", "1g")) {
      assertEquals(0, mkfs.awaitExit(START), mkfs.output());
    }
    try (OsdProcess osd = OsdProcess.startOsd(data, "--cache-size", "256m")) {
      String ready = osd.awaitLine("tidestore osd ready", START);
      int objectPort = port(ready, "object");
      int nbdPort = port(ready, "nbd");
      List<String> images = new ArrayList<>();
      for (int i = 0; i < IMAGES; i++) {
        images.add("soak" + i);
        try (OsdProcess create =
            OsdProcess.start(
                "image",
                "--osd",
                "127.0.0.1:" + objectPort,
                "create",
                "soak" + i,
                "--size",
                (IMAGE_BYTES >> 20) + "M")) {
          assertEquals(0, create.awaitExit(START), create.output());
        }
      }
      SoakSamples samples = new SoakSamples(osd.pid());
      String title = nbd + " NBD + " + objects + " object connections";
      try (SoakLoad load = new SoakLoad(thinkMillis)) {
        load.startNbd(nbdPort, images, IMAGE_BYTES, nbd);
        load.startObjects(objectPort, objects);
        long end = System.nanoTime() + (long) (minutes * 60e9);
        Histogram interval = null;
        while (System.nanoTime() < end) {
          TimeUnit.SECONDS.sleep(periodSeconds);
          interval = load.latencies.getIntervalHistogram(interval);
          SoakSamples.Sample s = samples.take(load.ops.get(), load.failures.get(), interval);
          System.out.println("[soak] " + s);
          List<String> changed = samples.threadChanges();
          if (!changed.isEmpty()) {
            System.out.println("[soak] threads " + changed);
          }
        }
        load.close();
        samples.write(out, title);
        assertEquals(0, load.failures.get(), "failed ops: " + load.firstFailures());
      }
      for (SoakSamples.Sample s : samples.after(60 * warmupMinutes)) {
        assertTrue(s.ops() > 0, "no op completed in the period up to " + s);
      }
      if (longRun) {
        List<SoakSamples.Sample> steady = samples.after(60 * warmupMinutes);
        double growth = SoakSamples.rssGrowthMibPer10Min(steady);
        assertTrue(growth < 1.0, "RSS grows " + growth + " MiB per 10 minutes after the warm-up");
        // No growth of the floor: io_uring's kernel workers (iou-wrk-N) start when a request must
        // block and end when idle (printed as "[soak] threads"); a leak raises the floor.
        assertTrue(SoakSamples.flat(steady, SoakSamples.Sample::fds), "open files grow: " + steady);
        assertTrue(
            SoakSamples.flat(steady, SoakSamples.Sample::threads), "threads grow: " + steady);
      }
      osd.signal("TERM");
      assertEquals(0, osd.awaitExit(START), osd.output());
    }
  }

  private static int port(String ready, String name) {
    Matcher m = Pattern.compile(name + "=(\\d+)").matcher(ready);
    assertTrue(m.find(), ready);
    return Integer.parseInt(m.group(1));
  }
}
