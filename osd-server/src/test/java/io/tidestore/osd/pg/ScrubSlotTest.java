package io.tidestore.osd.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

class ScrubSlotTest {
  @Test
  void aScrubWaitsAsLongAsReadingAtItsRateTakes() {
    ScrubSlot slot = new ScrubSlot(new SimpleMeterRegistry(), 0, 16L << 20);
    assertEquals(1000, slot.pauseMillisFor(16L << 20));
    assertEquals(250, slot.pauseMillisFor(4L << 20));
    assertEquals(0, slot.pauseMillisFor(0));
    assertEquals(0, new ScrubSlot(new SimpleMeterRegistry(), 0, 0).pauseMillisFor(1L << 30));
  }
}
