package io.tidestore.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.protocol.OpException;
import io.tidestore.osd.protocol.Status;
import java.nio.channels.ClosedChannelException;
import org.junit.jupiter.api.Test;

class ClientObjectOpsTest {
  @Test
  void aStatusThatNamesAnOpFailureBecomesItKeepingTheMessage() {
    OpException reply = new OpException(Status.ENOENT, "ENOENT: NOT_FOUND: no object x");
    ObjectOpsException op =
        assertInstanceOf(ObjectOpsException.class, ClientObjectOps.asOpFailure(reply));
    assertEquals(ObjectOpsException.Code.NOT_FOUND, op.code());
    assertEquals(reply.getMessage(), op.getMessage());
  }

  @Test
  void theProtocolsOwnFailuresStayAsTheyAre() {
    OpException proto = new OpException(Status.EPROTO, "server chose version 9");
    assertSame(proto, ClientObjectOps.asOpFailure(proto));
    ClosedChannelException closed = new ClosedChannelException();
    assertSame(closed, ClientObjectOps.asOpFailure(closed));
  }
}
