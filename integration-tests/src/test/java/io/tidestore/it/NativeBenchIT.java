package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tidestore bench} and {@code sweep --engine native} against a real daemon on a real store:
 * fio-format JSON with real I/O counts, exactly iodepth in flight, a sweep run directory, and clear
 * refusals.
 */
class NativeBenchIT {
  private static final Pattern OBJECT_PORT = Pattern.compile("object=(\\d+)");

  @TempDir Path dir;

  @Test
  void benchAndNativeSweepMeasureARealDaemon() throws Exception {
    Path data = dir.resolve("osd");
    try (OsdProcess mkfs =
        OsdProcess.start(
            "mkfs", "--data", data.toString(), "--shards", "2", "--shard-size", "64m")) {
      assertEquals(0, mkfs.awaitExit(Duration.ofSeconds(120)), mkfs.output());
    }
    try (OsdProcess osd =
        OsdProcess.start(
            "osd",
            "--data",
            data.toString(),
            "--port",
            "0",
            "--nbd-port",
            "0",
            "--metrics-port",
            "0")) {
      // Generous: a loaded machine (parallel builds) slows the cache's allocation at startup.
      Matcher port =
          OBJECT_PORT.matcher(osd.awaitLine("tidestore osd ready", Duration.ofMinutes(2)));
      assertTrue(port.find());
      String address = "127.0.0.1:" + port.group(1);
      run(Duration.ofSeconds(60), "image", "--osd", address, "create", "bench0", "--size", "64M");

      Path json = dir.resolve("bench.json");
      String out =
          run(
              Duration.ofSeconds(90),
              "bench",
              "--osd",
              address,
              "--image",
              "bench0",
              "--rw",
              "randrw",
              "--rwmixread",
              "50",
              "--bs",
              "4k",
              "--iodepth",
              "4",
              "--numjobs",
              "2",
              "--runtime",
              "2",
              "--ramp-time",
              "1",
              "--time-based",
              "--random-distribution",
              "zipf:0.8",
              "--output-format",
              "json",
              "--output",
              json.toString());
      assertTrue(out.contains("tidestore bench: bench (randrw bs=4k iodepth=4 numjobs=2"), out);
      JsonNode job = new ObjectMapper().readTree(json.toFile()).path("jobs").get(0);
      assertEquals(0, job.path("error").asInt());
      long reads = job.path("read").path("total_ios").asLong();
      long writes = job.path("write").path("total_ios").asLong();
      assertTrue(reads > 0 && writes > 0, job.toString());
      assertTrue(job.path("read").path("clat_ns").path("percentile").has("99.000000"));
      assertTrue(job.path("usr_cpu").asDouble() > 0, job.toString());

      // A job file with an option the bench does not run is refused by name, exit 2.
      Path bad = dir.resolve("bad.fio");
      Files.writeString(bad, "[j]\nrw=randwrite\nverify=crc32c\nfilename=bench0\n");
      try (OsdProcess refused = OsdProcess.start("bench", "--osd", address, bad.toString())) {
        assertEquals(2, refused.awaitExit(Duration.ofSeconds(60)), refused.output());
        assertTrue(refused.output().contains("option 'verify' is not supported"), refused.output());
      }
      try (OsdProcess missing =
          OsdProcess.start("bench", "--osd", address, "--image", "nosuch", "--runtime", "1")) {
        assertEquals(2, missing.awaitExit(Duration.ofSeconds(60)), missing.output());
        assertTrue(missing.output().contains("no image 'nosuch'"), missing.output());
      }

      Path run = dir.resolve("run");
      String sweep =
          run(
              Duration.ofSeconds(240),
              "sweep",
              "--engine",
              "native",
              "--osd",
              address,
              "--workloads",
              "randwrite4k-zoned,seqread64k",
              "--iodepths",
              "1,8",
              "--runtime",
              "1",
              "--ramp",
              "0",
              "--server-pid",
              Long.toString(osd.pid()),
              "--out",
              run.toString());
      assertTrue(sweep.contains("[4/4] seqread64k iodepth=8"), sweep);
      assertTrue(Files.size(run.resolve("charts/seqread64k-latency.svg")) > 0);
      assertTrue(Files.size(run.resolve("points/randwrite4k-zoned-qd8.fio.json")) > 0);
      String report = Files.readString(run.resolve("report.md"));
      assertTrue(report.contains("- engine: tidestore bench"), report);
      assertTrue(report.contains("| iodepth | bw | total_ios |"), report);
      String point = Files.readString(run.resolve("jobs/randwrite4k-zoned-qd8.fio"));
      assertTrue(point.contains("random_distribution=zoned:60/10:30/20:8/30:2/40"), point);
      assertTrue(point.contains("filename=bench0"), point);
      osd.signal("TERM");
      assertEquals(0, osd.awaitExit(Duration.ofSeconds(30)));
    }
  }

  private static String run(Duration timeout, String... args) throws Exception {
    try (OsdProcess p = OsdProcess.start(args)) {
      assertEquals(0, p.awaitExit(timeout), p.output());
      return p.output();
    }
  }
}
