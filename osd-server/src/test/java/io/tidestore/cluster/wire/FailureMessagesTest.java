package io.tidestore.cluster.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tidestore.cluster.wire.FailureMessages.OsdFailure;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * OSD_FAILURE's payload and the HEARTBEAT reply's grace: what is written reads back; a payload cut
 * or too long, of another kind, or with an id, incarnation or duration out of range is refused with
 * a {@link WireException} (BAD_REQUEST), as the monitor answers it.
 */
class FailureMessagesTest {
  @Test
  void failureAndAliveReportsRoundTrip() throws Exception {
    OsdFailure failed = new OsdFailure(3, 12, Integer.MAX_VALUE, Long.MAX_VALUE, 6_200, false);
    byte[] bytes = FailureMessages.encode(failed);
    assertEquals(FailureMessages.BYTES, bytes.length);
    assertEquals(failed, FailureMessages.decode(bytes));
    OsdFailure alive = OsdFailure.alive(0, 1, 2, 3);
    assertEquals(alive, FailureMessages.decode(FailureMessages.encode(alive)));
    assertEquals(FailureMessages.ALIVE, FailureMessages.encode(alive)[FailureMessages.BYTES - 1]);
  }

  @Test
  void malformedReportsAreRefused() {
    byte[] good = FailureMessages.encode(new OsdFailure(3, 12, 4, 9, 6_200, false));
    refused(Arrays.copyOf(good, good.length - 1));
    refused(Arrays.copyOf(good, good.length + 1));
    refused(with(good, b -> b.put(FailureMessages.BYTES - 1, (byte) 0))); // kind 0
    refused(with(good, b -> b.put(FailureMessages.BYTES - 1, (byte) 3)));
    refused(with(good, b -> b.putInt(0, -1))); // reporter
    refused(with(good, b -> b.putLong(4, -1))); // reporter's incarnation
    refused(with(good, b -> b.putInt(12, -1))); // target
    refused(with(good, b -> b.putLong(16, -1))); // target's incarnation
    refused(with(good, b -> b.putLong(24, -1))); // failed for
    byte[] alive = FailureMessages.encode(OsdFailure.alive(3, 12, 4, 9));
    refused(with(alive, b -> b.putLong(24, 5))); // an alive report failed for 5 ms
  }

  @Test
  void theHeartbeatReplyCarriesTheGrace() throws Exception {
    byte[] reply = MonMessages.heartbeatReply(Duration.ofSeconds(6));
    assertArrayEquals(new byte[] {0, 0, 0x17, 0x70}, reply);
    assertEquals(Duration.ofSeconds(6), MonMessages.heartbeatReply(reply));
    assertNull(MonMessages.heartbeatReply(new byte[0]), "an older monitor's empty OK");
    assertThrows(WireException.class, () -> MonMessages.heartbeatReply(new byte[4]));
    assertThrows(WireException.class, () -> MonMessages.heartbeatReply(new byte[3]));
    assertThrows(WireException.class, () -> MonMessages.heartbeatReply(new byte[5]));
  }

  private interface Edit {
    void apply(ByteBuffer b);
  }

  private static byte[] with(byte[] bytes, Edit edit) {
    byte[] copy = bytes.clone();
    edit.apply(ByteBuffer.wrap(copy));
    return copy;
  }

  private static void refused(byte[] payload) {
    WireException e = assertThrows(WireException.class, () -> FailureMessages.decode(payload));
    assertEquals(WireException.BAD_REQUEST, e.code());
  }
}
