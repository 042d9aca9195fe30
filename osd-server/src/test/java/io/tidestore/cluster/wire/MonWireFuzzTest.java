package io.tidestore.cluster.wire;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.tidestore.cluster.map.MapCodec;
import io.tidestore.store.testing.AllocationBound;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;

/**
 * Fuzzes the monitor protocol as a monitor or an OSD reads it from a peer's socket: {@link
 * MonFrame#read} frame after frame, and each frame's payload decoded as its type says ({@link
 * MonMessages}; MAP with {@link MapCodec}). The contract: an IOException (WireException,
 * MapFormatException, EOFException, a bad modified UTF-8 string) or values; no other exception;
 * allocation proportional to the bytes received, never to a frame's length field.
 */
class MonWireFuzzTest {
  @FuzzTest
  void frames(byte[] input) {
    AllocationBound.check("monitor protocol", input.length, 1 << 20, 64, () -> exercise(input));
  }

  private static void exercise(byte[] input) {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(input));
    while (true) {
      MonFrame frame;
      try {
        frame = MonFrame.read(in);
      } catch (EOFException e) {
        return; // the peer closed, at or inside a frame
      } catch (IOException e) {
        return; // a refused frame: the connection is closed
      }
      try {
        payload(frame);
      } catch (IOException e) {
        // the documented refusal of a body; the next frame is still read
      }
    }
  }

  private static void payload(MonFrame frame) throws IOException {
    byte[] p = frame.payload();
    switch (frame.type()) {
      case MonFrame.BOOT -> MonMessages.boot(p);
      case MonFrame.HEARTBEAT -> MonMessages.heartbeat(p);
      case MonFrame.GET_MAP, MonFrame.SUBSCRIBE -> MonMessages.epoch(p);
      case MonFrame.POOL_CREATE, MonFrame.POOL_REMOVE ->
          io.tidestore.cluster.map.CommandCodec.decode(p);
      case MonFrame.PG_ACTIVATED -> io.tidestore.cluster.pghistory.PgActivations.decodeCommand(p);
      case MonFrame.PG_HISTORY -> PgHistoryMessages.pgIds(p);
      case MonFrame.MON_STATUS -> MonMessages.monStatus(p);
      case MonFrame.OK -> {
        // An OK's body depends on the request it answers: try each reading a client does.
        tryRead(() -> MonMessages.bootReply(p));
        tryRead(() -> MonMessages.monStatus(p));
        tryRead(() -> MonMessages.pgSummary(p));
        tryRead(() -> PgHistoryMessages.pgIds(p));
        tryRead(() -> PgHistoryMessages.activations(p));
      }
      case MonFrame.ERROR -> MonMessages.error(frame);
      case MonFrame.MAP -> MapCodec.decode(p);
      default -> {} // an unknown type is answered with an error, its body unread
    }
  }

  private interface Read {
    Object run() throws IOException;
  }

  private static void tryRead(Read read) {
    try {
      read.run();
    } catch (IOException e) {
      // refused
    }
  }
}
