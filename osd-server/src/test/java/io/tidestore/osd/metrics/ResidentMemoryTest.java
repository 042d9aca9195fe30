package io.tidestore.osd.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ResidentMemoryTest {
  @Test
  void readsVmRssInKibibytes() {
    assertEquals(
        123456 * 1024.0,
        ResidentMemory.parse(List.of("Name:\tjava", "VmRSS:\t  123456 kB", "Threads:\t9")));
  }

  @Test
  void nanWithoutAReadableLine() {
    assertTrue(Double.isNaN(ResidentMemory.parse(List.of("Name:\tjava"))));
    assertTrue(Double.isNaN(ResidentMemory.parse(List.of("VmRSS:\t12 MB"))));
  }

  @Test
  void thisProcessHasOne() {
    // The JVM running this test holds at least its own heap's first megabytes in RAM.
    assertTrue(ResidentMemory.bytes() > 1 << 20, "VmRSS " + ResidentMemory.bytes());
  }
}
