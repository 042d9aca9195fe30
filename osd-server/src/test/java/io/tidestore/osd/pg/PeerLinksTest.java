package io.tidestore.osd.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.osd.ops.ObjectChunk;
import java.net.ServerSocket;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PeerLinksTest {
  /** A push whose link cannot be made still gives back its chunk's buffer. */
  @Test
  void aPushThatCannotBeSentReleasesItsChunk() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort(); // nothing listens there once closed
    }
    ByteBuf data = Unpooled.directBuffer(4096).writeZero(4096);
    ObjectChunk chunk = new ObjectChunk("obj", false, true, true, 0, 4096, new TreeMap<>(), data);
    try (PeerLinks links = new PeerLinks(null, epoch -> {})) {
      assertThrows(
          ExecutionException.class,
          () ->
              links
                  .push(1, "127.0.0.1:" + closedPort, 1, new PgId(1, 0), chunk)
                  .get(30, TimeUnit.SECONDS));
    }
    assertEquals(0, data.refCnt());
  }
}
