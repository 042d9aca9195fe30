package io.tidestore.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tidestore.bench.result.FioJson;
import io.tidestore.bench.result.PointMetrics;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Against fio 3.33 output recorded on this machine (src/test/resources/bench). */
class FioJsonTest {
  private static Path fixture(String name) {
    return Path.of("src", "test", "resources", "bench", name);
  }

  @Test
  void randread4k() throws Exception {
    PointMetrics m = FioJson.read(fixture("fio-randread4k.json"));
    assertEquals(16598.2009, m.iops(), 1e-6);
    assertEquals(64.8515625, m.bandwidthMiBs(), 1e-9);
    assertEquals(33213, m.totalIos());
    assertEquals(0.438243625, m.clatMeanMs(), 1e-6);
    assertEquals(0.403042644, m.clatStdevMs(), 1e-6);
    assertEquals(0.280576, m.clatP50Ms(), 1e-9);
    assertEquals(1.744896, m.clatP99Ms(), 1e-9);
    assertEquals(3.65, m.usrCpu(), 1e-9);
    assertEquals(43.9, m.sysCpu(), 1e-9);
  }

  @Test
  void mixedReadsAndWritesArePooled() throws Exception {
    PointMetrics m = FioJson.read(fixture("fio-randrw64k-2jobs.json"));
    assertEquals(6049.776008, m.iops(), 1e-6);
    assertEquals(378.109375, m.bandwidthMiBs(), 1e-9);
    assertEquals(12154, m.totalIos());
    assertEquals(1.173902159, m.clatMeanMs(), 1e-6);
    assertEquals(1.761305069, m.clatStdevMs(), 1e-6);
    assertEquals(10.15808, m.clatP99Ms(), 1e-9);
  }

  @Test
  void failedJobsAndEmptyOutputAreErrors() {
    assertThrows(IOException.class, () -> FioJson.parse("{\"jobs\":[]}"));
    assertThrows(
        IOException.class, () -> FioJson.parse("{\"jobs\":[{\"jobname\":\"x\",\"error\":5}]}"));
  }
}
