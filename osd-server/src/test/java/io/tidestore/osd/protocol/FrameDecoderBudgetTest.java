package io.tidestore.osd.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.tidestore.osd.net.InboundBudget;
import io.tidestore.osd.net.ReadGate;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The daemon-wide budget of incomplete frames, seen from the object protocol's decoder. */
class FrameDecoderBudgetTest {
  private static final int BODY = 1 << 20;
  private static final long FRAME = FrameDescriptor.HEADER_LENGTH + BODY;
  private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(30);

  private final InboundBudget budget = new InboundBudget(2 * FRAME);
  private final List<EmbeddedChannel> channels = new ArrayList<>();

  private EmbeddedChannel connect() {
    EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(TIMEOUT, true, budget));
    ch.freezeTime();
    channels.add(ch);
    return ch;
  }

  private static FrameDecoder decoder(EmbeddedChannel ch) {
    return ch.pipeline().get(FrameDecoder.class);
  }

  private static byte[] body(long seed) {
    byte[] bytes = new byte[BODY];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  private static ByteBuf frame(long id, byte[] body) {
    return ProtocolTestSupport.frame(Op.WRITE, id, Unpooled.wrappedBuffer(body));
  }

  /** Checks that {@code ch} decoded exactly one frame, {@code id} with {@code body}. */
  private static void assertFrame(EmbeddedChannel ch, long id, byte[] body) {
    Frame frame = ch.readInbound();
    assertEquals(id, frame.requestId());
    assertArrayEquals(body, ByteBufUtil.getBytes(frame.body()));
    frame.release();
    assertNull(ch.readInbound());
  }

  @AfterEach
  void closeAll() {
    for (EmbeddedChannel ch : channels) {
      ch.finishAndReleaseAll();
    }
  }

  /**
   * A waiting connection asks for no more reads: ByteToMessageDecoder would otherwise request one
   * after every read batch that decoded nothing, and on a real socket keep pulling the waiting
   * frame in until all of it was buffered (found with 120 hostile connections: 15 MiB each).
   */
  @Test
  void aWaitingConnectionRequestsNoFurtherReads() {
    connect().writeInbound(frame(1, body(1)).readRetainedSlice(BODY / 2));
    connect().writeInbound(frame(2, body(2)).readRetainedSlice(BODY / 2));
    int[] reads = {0};
    EmbeddedChannel c =
        new EmbeddedChannel(
            new io.netty.channel.ChannelOutboundHandlerAdapter() {
              @Override
              public void read(io.netty.channel.ChannelHandlerContext ctx) {
                reads[0]++;
                ctx.read();
              }
            },
            new FrameDecoder(TIMEOUT, true, budget));
    channels.add(c);
    ByteBuf frameC = frame(3, body(3));
    int before = reads[0];
    c.writeInbound(frameC.readRetainedSlice(BODY / 4)); // a read, then its read-complete
    assertFalse(c.config().isAutoRead(), "the third connection waits for the budget");
    c.pipeline().fireChannelReadComplete();
    assertEquals(before, reads[0], "no read requested while waiting");
    frameC.release();
  }

  @Test
  void thirdLargeFrameWaitsUntilAnotherCompletesThenArrivesWhole() {
    EmbeddedChannel a = connect();
    EmbeddedChannel b = connect();
    EmbeddedChannel c = connect();
    byte[] bodyA = body(1);
    byte[] bodyB = body(2);
    byte[] bodyC = body(3);
    ByteBuf frameA = frame(1, bodyA);
    ByteBuf frameB = frame(2, bodyB);
    ByteBuf frameC = frame(3, bodyC);

    a.writeInbound(frameA.readRetainedSlice(BODY / 2));
    b.writeInbound(frameB.readRetainedSlice(BODY / 2));
    assertEquals(FRAME, decoder(a).reservedBytes());
    assertEquals(FRAME, decoder(b).reservedBytes());
    assertEquals(2 * FRAME, budget.reservedBytes());
    assertTrue(a.config().isAutoRead());
    assertTrue(b.config().isAutoRead());

    c.writeInbound(frameC.readRetainedSlice(BODY / 2));
    assertEquals(0, decoder(c).reservedBytes());
    assertFalse(c.config().isAutoRead(), "the third connection is not read");
    assertEquals(1, budget.waitingConnections());
    assertEquals(2 * FRAME, budget.reservedBytes());

    a.writeInbound(frameA);
    assertFrame(a, 1, bodyA);
    assertEquals(0, decoder(a).reservedBytes(), "given back when the frame is handed on");
    assertFalse(c.config().isAutoRead(), "resumes on its own loop, not inside the release");
    c.runPendingTasks();
    assertTrue(c.config().isAutoRead());
    assertEquals(FRAME, decoder(c).reservedBytes());
    assertEquals(2 * FRAME, budget.reservedBytes());

    c.writeInbound(frameC);
    assertFrame(c, 3, bodyC);
    b.writeInbound(frameB);
    assertFrame(b, 2, bodyB);
    assertEquals(0, budget.reservedBytes());
    assertEquals(0, budget.waitingConnections());
  }

  @Test
  void disconnectMidFrameGivesTheReservationBackAndWakesAWaiter() {
    EmbeddedChannel a = connect();
    EmbeddedChannel b = connect();
    EmbeddedChannel c = connect();
    byte[] bodyC = body(3);
    ByteBuf frameA = frame(1, body(1));
    ByteBuf frameB = frame(2, body(2));
    ByteBuf frameC = frame(3, bodyC);
    a.writeInbound(frameA.readRetainedSlice(BODY / 2));
    b.writeInbound(frameB.readRetainedSlice(BODY / 2));
    c.writeInbound(frameC.readRetainedSlice(100));
    assertFalse(c.config().isAutoRead());

    a.close();
    assertEquals(FRAME, budget.reservedBytes());
    c.runPendingTasks();
    assertTrue(c.config().isAutoRead());
    assertEquals(FRAME, decoder(c).reservedBytes());

    b.close();
    c.close();
    assertEquals(0, budget.reservedBytes(), "every reservation back after the disconnects");
    assertEquals(0, budget.waitingConnections());
    frameA.release();
    frameB.release();
    frameC.release();
  }

  @Test
  void waitingConnectionThatDisconnectsLeavesTheWaitList() {
    EmbeddedChannel a = connect();
    EmbeddedChannel b = connect();
    EmbeddedChannel c = connect();
    ByteBuf frameA = frame(1, body(1));
    ByteBuf frameB = frame(2, body(2));
    ByteBuf frameC = frame(3, body(3));
    a.writeInbound(frameA.readRetainedSlice(BODY / 2));
    b.writeInbound(frameB.readRetainedSlice(BODY / 2));
    c.writeInbound(frameC.readRetainedSlice(100));
    assertEquals(1, budget.waitingConnections());
    c.close();
    assertEquals(0, budget.waitingConnections());
    assertEquals(2 * FRAME, budget.reservedBytes());
    a.close();
    b.close();
    assertEquals(0, budget.reservedBytes());
    frameA.release();
    frameB.release();
    frameC.release();
  }

  @Test
  void frameLargerThanTheBudgetArrivesWhenItIsAlone() {
    InboundBudget small = new InboundBudget(FRAME / 4);
    EmbeddedChannel a = new EmbeddedChannel(new FrameDecoder(TIMEOUT, true, small));
    EmbeddedChannel b = new EmbeddedChannel(new FrameDecoder(TIMEOUT, true, small));
    channels.add(a);
    channels.add(b);
    byte[] bodyA = body(1);
    ByteBuf frameA = frame(1, bodyA);
    a.writeInbound(frameA.readRetainedSlice(1000));
    assertTrue(a.config().isAutoRead());
    assertEquals(FRAME, small.reservedBytes());
    ByteBuf frameB = frame(2, body(2));
    b.writeInbound(frameB.readRetainedSlice(1000));
    assertFalse(b.config().isAutoRead());
    a.writeInbound(frameA);
    assertFrame(a, 1, bodyA);
    b.runPendingTasks();
    assertTrue(b.config().isAutoRead());
    b.close();
    assertEquals(0, small.reservedBytes());
    frameB.release();
  }

  @Test
  void smallFramesNeverTouchTheBudget() {
    InboundBudget none = new InboundBudget(1);
    EmbeddedChannel a = new EmbeddedChannel(new FrameDecoder(TIMEOUT, true, none));
    channels.add(a);
    assertTrue(none.tryReserve(1)); // the budget is full
    byte[] body = new byte[InboundBudget.THRESHOLD - FrameDescriptor.MIN_LENGTH];
    ByteBuf frame = ProtocolTestSupport.frame(Op.WRITE, 7, Unpooled.wrappedBuffer(body));
    a.writeInbound(frame.readRetainedSlice(1000));
    assertTrue(a.config().isAutoRead());
    a.writeInbound(frame);
    Frame decoded = a.readInbound();
    assertEquals(7, decoded.requestId());
    decoded.release();
    assertEquals(1, none.reservedBytes());
    none.release(1);
  }

  @Test
  void backpressureResumeDoesNotReopenABudgetPause() {
    EmbeddedChannel ch = connect();
    ReadGate gate = ReadGate.of(ch);
    gate.pause(ReadGate.BUDGET);
    gate.pause(ReadGate.BACKPRESSURE);
    gate.resume(ReadGate.BACKPRESSURE);
    assertFalse(ch.config().isAutoRead());
    gate.resume(ReadGate.BUDGET);
    assertTrue(ch.config().isAutoRead());
  }
}
