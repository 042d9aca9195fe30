package io.tidestore.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.bench.job.FioJob;
import io.tidestore.bench.job.RandomDistribution;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** tidestore bench's jobs: flags, job files with flags applied, and what it refuses. */
class BenchJobsTest {
  @TempDir Path dir;

  @Test
  void flagsAloneMakeOneJobWithFiosDefaults() throws Exception {
    Map<String, String> flags = new LinkedHashMap<>();
    flags.put("rw", "randrw");
    flags.put("rwmixread", "70");
    flags.put("iodepth", "16");
    flags.put("runtime", "10s");
    flags.put("time_based", "1");
    flags.put("random_distribution", "zoned:60/10:30/20:8/30:2/40");
    FioJob job = BenchJobs.resolve(null, flags).getFirst();
    assertEquals(FioJob.Rw.RANDRW, job.rw());
    assertEquals(70, job.readPercent());
    assertEquals(4096, job.blockSize()); // fio's default bs
    assertEquals(1, job.numjobs());
    assertEquals(16, job.iodepth());
    assertEquals(10, job.runtimeSeconds());
    assertTrue(job.timeBased());
    assertEquals(RandomDistribution.Kind.ZONED, job.distribution().kind());
  }

  @Test
  void flagsOverrideEveryJobOfAFile() throws Exception {
    Path file = dir.resolve("two.fio");
    Files.writeString(
        file,
        "[global]\nioengine=rbd\nrw=randread\nbs=4k\nruntime=30\ntime_based\n"
            + "[a]\nrbdname=img0\nrandom_distribution=zipf:0.768780\n[b]\nfilename=img1\n");
    List<FioJob> jobs = BenchJobs.resolve(file, Map.of("iodepth", "8", "runtime", "2"));
    assertEquals(2, jobs.size());
    assertEquals("img0", jobs.get(0).target());
    assertEquals("img1", jobs.get(1).target());
    for (FioJob job : jobs) {
      assertEquals(8, job.iodepth());
      assertEquals(2, job.runtimeSeconds());
    }
    assertEquals("zipf:0.76878", OffsetStream.generatorSpec(jobs.get(0).distribution()));
    assertEquals("uniform", OffsetStream.generatorSpec(jobs.get(1).distribution()));
  }

  @Test
  void unsupportedOptionsAndValuesAreRefusedByName() throws Exception {
    Path file = dir.resolve("verify.fio");
    Files.writeString(file, "[j]\nrw=randwrite\nverify=crc32c\n");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> BenchJobs.resolve(file, Map.of()));
    assertTrue(e.getMessage().contains("verify.fio:3: option 'verify'"), e.getMessage());

    e =
        assertThrows(
            IllegalArgumentException.class, () -> BenchJobs.resolve(null, Map.of("rw", "trim")));
    assertTrue(e.getMessage().contains("rw=trim is not supported"), e.getMessage());

    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> BenchJobs.resolve(null, Map.of("rw", "read", "random_distribution", "zipf:1.2")));
    assertTrue(e.getMessage().contains("random patterns"), e.getMessage());

    e =
        assertThrows(
            IllegalArgumentException.class, () -> BenchJobs.resolve(null, Map.of("verify", "md5")));
    assertTrue(e.getMessage().contains("'verify' is not supported"), e.getMessage());
  }

  @Test
  void offsetsAreBlockAlignedWithinTheSpanAndSequentialOnesWrap() {
    FioJob seq = job(Map.of("rw", "write", "bs", "64k"));
    OffsetStream s = OffsetStream.of(seq, 3 * 65536, 1);
    assertEquals(List.of(0L, 65536L, 131072L, 0L), List.of(s.next(), s.next(), s.next(), s.next()));

    for (String dist : List.of("random", "zipf:0.768780", "normal:0.6", "zoned:60/10:40/90")) {
      FioJob random = job(Map.of("rw", "randread", "bs", "4k", "random_distribution", dist));
      OffsetStream r = OffsetStream.of(random, 1 << 20, 7);
      for (int i = 0; i < 10_000; i++) {
        long offset = r.next();
        assertEquals(0, offset % 4096, dist);
        assertTrue(offset >= 0 && offset < (1 << 20), dist + ": " + offset);
      }
    }
  }

  @Test
  void zonedOffsetsFollowTheZonesAccessShares() {
    FioJob job =
        job(Map.of("rw", "randread", "bs", "4k", "random_distribution", "zoned:90/10:10/90"));
    OffsetStream r = OffsetStream.of(job, 1000L * 4096, 3);
    int inFirstZone = 0;
    for (int i = 0; i < 100_000; i++) {
      if (r.next() < 100L * 4096) {
        inFirstZone++;
      }
    }
    assertEquals(0.9, inFirstZone / 100_000.0, 0.01);
  }

  private static FioJob job(Map<String, String> options) {
    try {
      return BenchJobs.resolve(null, options).getFirst();
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }
}
