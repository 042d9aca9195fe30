package io.tidestore.osd.nbd;

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
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The daemon-wide budget of incomplete frames, seen from the NBD request decoder. */
class NbdRequestDecoderBudgetTest {
  private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(30);
  private final List<EmbeddedChannel> channels = new ArrayList<>();

  private EmbeddedChannel connect(InboundBudget budget) {
    EmbeddedChannel ch = new EmbeddedChannel(new NbdRequestDecoder(budget, TIMEOUT));
    ch.freezeTime();
    channels.add(ch);
    return ch;
  }

  private static NbdRequestDecoder decoder(EmbeddedChannel ch) {
    return ch.pipeline().get(NbdRequestDecoder.class);
  }

  private static byte[] payload(int length, long seed) {
    byte[] bytes = new byte[length];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  private static ByteBuf write(long cookie, byte[] payload) {
    return Unpooled.buffer()
        .writeInt(Nbd.REQUEST_MAGIC)
        .writeShort(0)
        .writeShort(Nbd.CMD_WRITE)
        .writeLong(cookie)
        .writeLong(4096)
        .writeInt(payload.length)
        .writeBytes(payload);
  }

  private static void assertWrite(EmbeddedChannel ch, long cookie, byte[] payload) {
    NbdRequest request = ch.readInbound();
    assertEquals(cookie, request.cookie());
    assertEquals(Nbd.CMD_WRITE, request.type());
    assertArrayEquals(payload, ByteBufUtil.getBytes(request.payload()));
    request.payload().release();
    assertNull(ch.readInbound());
  }

  @AfterEach
  void closeAll() {
    for (EmbeddedChannel ch : channels) {
      ch.finishAndReleaseAll();
    }
  }

  /** A waiting connection asks for no more reads (ByteToMessageDecoder would, after each batch). */
  @ParameterizedTest
  @ValueSource(ints = {512 << 10, 4 << 20})
  void aWaitingConnectionRequestsNoFurtherReads(int length) {
    InboundBudget budget = new InboundBudget(length);
    connect(budget).writeInbound(write(1, payload(length, 1)).readRetainedSlice(length / 2));
    int[] reads = {0};
    EmbeddedChannel waiting =
        new EmbeddedChannel(
            new io.netty.channel.ChannelOutboundHandlerAdapter() {
              @Override
              public void read(io.netty.channel.ChannelHandlerContext ctx) {
                reads[0]++;
                ctx.read();
              }
            },
            new NbdRequestDecoder(budget, TIMEOUT));
    channels.add(waiting);
    ByteBuf second = write(2, payload(length, 2));
    int before = reads[0];
    waiting.writeInbound(second.readRetainedSlice(length / 4)); // a read, then its read-complete
    assertEquals(false, waiting.config().isAutoRead(), "the second connection waits");
    assertEquals(before, reads[0], "no read requested while waiting");
    second.release();
  }

  /** 512 KiB is assembled in a buffer of its own, 4 MiB accumulates: both are reserved. */
  @ParameterizedTest
  @ValueSource(ints = {512 << 10, 4 << 20})
  void thirdLargeWriteWaitsUntilAnotherCompletesThenArrivesWhole(int length) {
    InboundBudget budget = new InboundBudget(2L * length);
    EmbeddedChannel a = connect(budget);
    EmbeddedChannel b = connect(budget);
    EmbeddedChannel c = connect(budget);
    byte[] pa = payload(length, 1);
    byte[] pb = payload(length, 2);
    byte[] pc = payload(length, 3);
    ByteBuf wa = write(1, pa);
    ByteBuf wb = write(2, pb);
    ByteBuf wc = write(3, pc);

    a.writeInbound(wa.readRetainedSlice(length / 2));
    b.writeInbound(wb.readRetainedSlice(length / 2));
    assertEquals(length, decoder(a).reservedBytes());
    assertEquals(length, decoder(b).reservedBytes());
    c.writeInbound(wc.readRetainedSlice(length / 2));
    assertFalse(c.config().isAutoRead(), "the third connection is not read");
    assertEquals(0, decoder(c).reservedBytes());
    assertEquals(2L * length, budget.reservedBytes());

    a.writeInbound(wa);
    assertWrite(a, 1, pa);
    assertEquals(0, decoder(a).reservedBytes());
    c.runPendingTasks();
    assertTrue(c.config().isAutoRead());
    assertEquals(length, decoder(c).reservedBytes());
    c.writeInbound(wc);
    assertWrite(c, 3, pc);
    b.writeInbound(wb);
    assertWrite(b, 2, pb);
    assertEquals(0, budget.reservedBytes());
  }

  @Test
  void disconnectMidPayloadGivesTheReservationBack() {
    int length = 4 << 20;
    InboundBudget budget = new InboundBudget(2L * length);
    EmbeddedChannel a = connect(budget);
    EmbeddedChannel b = connect(budget);
    EmbeddedChannel c = connect(budget);
    ByteBuf wa = write(1, payload(length, 1));
    ByteBuf wb = write(2, payload(length, 2));
    ByteBuf wc = write(3, payload(length, 3));
    a.writeInbound(wa.readRetainedSlice(100_000));
    b.writeInbound(wb.readRetainedSlice(100_000));
    c.writeInbound(wc.readRetainedSlice(100_000));
    assertFalse(c.config().isAutoRead());

    a.close();
    assertEquals(length, budget.reservedBytes());
    c.runPendingTasks();
    assertTrue(c.config().isAutoRead());
    b.close();
    c.close();
    assertEquals(0, budget.reservedBytes());
    assertEquals(0, budget.waitingConnections());
    wa.release();
    wb.release();
    wc.release();
  }

  @Test
  void stalledLargePayloadIsClosedAfterTheTimeoutAndItsReservationGoesBack() {
    int length = 1 << 20;
    InboundBudget budget = new InboundBudget(2L * length);
    EmbeddedChannel a = connect(budget);
    ByteBuf wa = write(1, payload(length, 1));
    a.writeInbound(wa.readRetainedSlice(1000));
    assertEquals(length, budget.reservedBytes());
    a.advanceTimeBy(20, TimeUnit.SECONDS);
    a.runScheduledPendingTasks();
    assertTrue(a.isOpen());
    a.advanceTimeBy(20, TimeUnit.SECONDS);
    a.runScheduledPendingTasks();
    assertFalse(a.isOpen());
    assertEquals(0, budget.reservedBytes());
    wa.release();
  }

  @Test
  void smallWritesNeverTouchTheBudget() {
    InboundBudget full = new InboundBudget(1);
    assertTrue(full.tryReserve(1));
    EmbeddedChannel a = connect(full);
    byte[] p = payload(InboundBudget.THRESHOLD, 5);
    ByteBuf wa = write(9, p);
    a.writeInbound(wa.readRetainedSlice(1000));
    assertTrue(a.config().isAutoRead());
    a.writeInbound(wa);
    assertWrite(a, 9, p);
    assertEquals(1, full.reservedBytes());
    full.release(1);
  }
}
