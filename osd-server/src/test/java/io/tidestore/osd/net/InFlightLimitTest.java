package io.tidestore.osd.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

class InFlightLimitTest {
  private final EmbeddedChannel channel = new EmbeddedChannel();
  private final ReadGate gate = ReadGate.of(channel);
  private final InFlightLimit limit = new InFlightLimit(gate, 4);

  @Test
  void stopsReadingAtTheLimitAndReadsAgainOnceHalfHaveCompleted() {
    for (int i = 0; i < 3; i++) {
      limit.started();
    }
    assertTrue(channel.config().isAutoRead(), "below the limit");
    limit.started();
    assertFalse(channel.config().isAutoRead(), "at the limit");
    assertEquals(4, limit.inFlight());

    limit.finished();
    limit.resumeIfDrained(true);
    assertFalse(channel.config().isAutoRead(), "3 of 4 still in flight");
    limit.finished();
    limit.resumeIfDrained(false);
    assertFalse(channel.config().isAutoRead(), "the outbound buffer is full");
    limit.resumeIfDrained(true);
    assertTrue(channel.config().isAutoRead(), "half drained and writable");
  }

  @Test
  void aFullOutboundBufferStopsReadingUntilItDrains() {
    limit.writabilityChanged(false);
    assertFalse(channel.config().isAutoRead());
    limit.writabilityChanged(true);
    assertTrue(channel.config().isAutoRead());
  }

  @Test
  void leavesOtherReasonsToStopReadingAlone() {
    gate.pause(ReadGate.BUDGET);
    limit.resumeIfDrained(true);
    assertFalse(channel.config().isAutoRead(), "resumed what it did not pause");
  }
}
