package io.tidestore.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.bench.job.ByteSize;
import io.tidestore.bench.job.FioJob;
import io.tidestore.bench.job.FioJobFile;
import io.tidestore.bench.job.RandomDistribution;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class FioJobFileTest {
  private static final Path WORKLOADS = Path.of("..", "conf", "workloads");

  @Test
  void globalOptionsApplyToLaterJobsAndJobsOverrideThem() {
    List<FioJob> jobs =
        FioJobFile.parse(
            "t.fio",
            """
            ; a comment
            [global]
            bs=64k
            iodepth=16
            time_based
            runtime=2m
            ramp_time=5s
            uri=nbd://127.0.0.1:10809/img0
            [a]
            rw=randread
            iodepth=4
            [b]
            rw=randrw
            rwmixwrite=30
            numjobs=2
            size=2g
            """);
    assertEquals(2, jobs.size());
    FioJob a = jobs.get(0);
    assertEquals(FioJob.Rw.RANDREAD, a.rw());
    assertEquals(65536, a.blockSize());
    assertEquals(4, a.iodepth());
    assertTrue(a.timeBased());
    assertEquals(120, a.runtimeSeconds());
    assertEquals(5, a.rampSeconds());
    assertEquals("img0", a.target());
    FioJob b = jobs.get(1);
    assertEquals(16, b.iodepth());
    assertEquals(70, b.readPercent());
    assertEquals(2, b.numjobs());
    assertEquals(2L << 30, b.size());
  }

  @Test
  void unsupportedOptionIsRejectedWithFileLineAndOption() {
    var e =
        assertThrows(
            IllegalArgumentException.class,
            () -> FioJobFile.parse("w.fio", "[global]\nbs=4k\n[j]\nverify=crc32c\n"));
    assertTrue(
        e.getMessage().startsWith("w.fio:4: option 'verify' is not supported"), e.getMessage());
    assertTrue(e.getMessage().contains("random_distribution"), e.getMessage());
  }

  @Test
  void badValuesAreRejectedWithTheJob() {
    for (String body :
        new String[] {
          "rw=trim",
          "bs=3",
          "iodepth=0",
          "rwmixread=101",
          "time_based=1",
          "rw=read\nrandom_distribution=zipf:0.7",
          "rw=randread\nrandom_distribution=zoned:60/10:30/20",
          "rw=randread\nrandom_distribution=pareto:0.5",
          "rw=randread\nrandom_distribution=zipf:1",
          "runtime=ten",
          "uri=http://x/y"
        }) {
      var e =
          assertThrows(
              IllegalArgumentException.class,
              () -> FioJobFile.parse("b.fio", "[j]\n" + body),
              body);
      assertTrue(e.getMessage().startsWith("b.fio:1 [j]: "), e.getMessage());
    }
    assertThrows(
        IllegalArgumentException.class, () -> FioJobFile.parse("g.fio", "[global]\nbs=4k"));
    assertThrows(IllegalArgumentException.class, () -> FioJobFile.parse("o.fio", "bs=4k\n[j]"));
  }

  @Test
  void distributionsFollowFioSyntax() {
    RandomDistribution zoned = RandomDistribution.parse("zoned:60/10:30/20:8/30:2/40");
    assertEquals(4, zoned.zones().size());
    assertEquals(new RandomDistribution.Zone(8, 30), zoned.zones().get(2));
    assertEquals("zoned:60/10:30/20:8/30:2/40", zoned.toFio());
    assertEquals(0.76878, RandomDistribution.parse("zipf:0.768780").parameter(), 1e-12);
    assertEquals(RandomDistribution.Kind.NORMAL, RandomDistribution.parse("normal:0.6").kind());
    assertEquals(RandomDistribution.UNIFORM, RandomDistribution.parse("random"));
  }

  @Test
  void sizesUseFiosPowersOf1024() {
    assertEquals(4096, ByteSize.parse("4k"));
    assertEquals(65536, ByteSize.parse("64KiB"));
    assertEquals(2L << 30, ByteSize.parse("2G"));
    assertEquals(512, ByteSize.parse("512"));
    assertEquals("64k", ByteSize.format(65536));
    assertEquals("2g", ByteSize.format(2L << 30));
    assertThrows(IllegalArgumentException.class, () -> ByteSize.parse("4x"));
    assertThrows(IllegalArgumentException.class, () -> ByteSize.parse("k"));
  }

  @Test
  void everyShippedSeedWorkloadParsesWithoutATarget() throws Exception {
    List<Path> files;
    try (Stream<Path> list = Files.list(WORKLOADS)) {
      files = list.filter(p -> p.toString().endsWith(".fio")).sorted().toList();
    }
    assertEquals(10, files.size(), files.toString());
    for (Path file : files) {
      List<FioJob> jobs = FioJobFile.read(file);
      assertEquals(1, jobs.size(), file.toString());
      FioJob job = jobs.getFirst();
      assertNull(job.target(), "target comes from the command line: " + file);
      assertTrue(job.timeBased());
      String name = file.getFileName().toString();
      assertEquals(name.substring(0, name.length() - 4), job.name());
      assertEquals(name.startsWith("seq") ? 65536 : 4096, job.blockSize(), name);
      assertFalse(job.rw().random() && name.startsWith("seq"), name);
    }
  }

  @Test
  void generatedJobFileAppliesOverridesAndParsesBack() {
    FioJob job =
        FioJobFile.parse("t", "[global]\nrw=randwrite\nbs=4k\niodepth=32\n[w]\n").getFirst();
    String text = job.toJobFile(Map.of("iodepth", "8", "runtime", "5", "time_based", "1"));
    FioJob again = FioJobFile.parse("gen", text).getFirst();
    assertEquals(8, again.iodepth());
    assertEquals(5, again.runtimeSeconds());
    assertEquals(FioJob.Rw.RANDWRITE, again.rw());
  }
}
