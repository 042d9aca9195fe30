package io.tidestore.osd.protocol;

import static io.tidestore.osd.protocol.ProtocolTestSupport.frame;
import static io.tidestore.osd.protocol.ProtocolTestSupport.hello;
import static io.tidestore.osd.protocol.ProtocolTestSupport.nameBody;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.tidestore.osd.ops.ObjectInfo;
import io.tidestore.osd.protocol.ProtocolTestSupport.ControlledOps;
import io.tidestore.osd.protocol.ProtocolTestSupport.Reply;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The decoder and connection handler on an EmbeddedChannel: every reply and close is checked. */
class ProtocolCodecTest {
  private final ControlledOps ops = new ControlledOps();
  private final ShardMap map =
      new ShardMap(FrameDescriptor.PLACEMENT_CRC32C, new int[] {6801}, new int[] {0, 0});

  private EmbeddedChannel channel(ServerLimits limits) {
    EmbeddedChannel ch =
        new EmbeddedChannel(
            new FrameDecoder(limits.partialFrameTimeout().toNanos(), true),
            new ObjectProtocolHandler(new ProtocolTestSupport.Context(ops, map), limits));
    ch.freezeTime();
    return ch;
  }

  private EmbeddedChannel helloDone() {
    return helloDone(ServerLimits.DEFAULT);
  }

  private EmbeddedChannel helloDone(ServerLimits limits) {
    EmbeddedChannel ch = channel(limits);
    ch.writeInbound(hello(1, 1, 1));
    Reply reply = next(ch);
    assertEquals(Status.OK, reply.status());
    assertEquals(Op.HELLO, reply.op());
    ByteBuf body = Unpooled.wrappedBuffer(reply.body());
    assertEquals(FrameDescriptor.VERSION, body.readUnsignedShort());
    assertEquals(0, body.readUnsignedShort()); // reactor
    assertEquals(1, body.readUnsignedShort()); // reactor count
    return ch;
  }

  /** Outbound bytes not yet parsed into replies (a reply may span several buffers). */
  private final ByteBuf outbound = Unpooled.buffer();

  private Reply next(EmbeddedChannel ch) {
    for (ByteBuf part; (part = ch.readOutbound()) != null; ) {
      outbound.writeBytes(part);
      part.release();
    }
    assertTrue(outbound.isReadable(), "no reply");
    return ProtocolTestSupport.parse(outbound);
  }

  @Test
  void fourGibLengthPrefixIsRejectedWithoutBufferingAndCloses() {
    EmbeddedChannel ch = helloDone();
    ByteBuf huge = Unpooled.buffer().writeInt(0xffffffff).writeByte(Op.WRITE).writeByte(0);
    huge.writeShort(0).writeLong(42).writeBytes(new byte[100]);
    ch.writeInbound(huge);
    Reply reply = next(ch);
    assertEquals(Status.EMSGSIZE, reply.status());
    assertEquals(42, reply.id());
    assertTrue(reply.message().contains("4294967295"), reply.message());
    assertFalse(ch.isOpen());
  }

  @Test
  void lengthBelowTheHeaderIsRejected() {
    EmbeddedChannel ch = helloDone();
    ch.writeInbound(Unpooled.buffer().writeInt(3).writeInt(0));
    assertEquals(Status.EMSGSIZE, next(ch).status());
    assertFalse(ch.isOpen());
  }

  @Test
  void firstFrameMustBeHello() {
    EmbeddedChannel ch = channel(ServerLimits.DEFAULT);
    ch.writeInbound(frame(Op.PING, 7, Unpooled.EMPTY_BUFFER));
    Reply reply = next(ch);
    assertEquals(Status.EPROTO, reply.status());
    assertEquals(7, reply.id());
    assertFalse(ch.isOpen());
  }

  @Test
  void versionMismatchAndBadMagicClose() {
    EmbeddedChannel ch = channel(ServerLimits.DEFAULT);
    ch.writeInbound(hello(1, 2, 3));
    Reply reply = next(ch);
    assertEquals(Status.EPROTO, reply.status());
    assertTrue(reply.message().contains("no common version"), reply.message());
    assertFalse(ch.isOpen());

    EmbeddedChannel bad = channel(ServerLimits.DEFAULT);
    bad.writeInbound(
        frame(Op.HELLO, 1, Unpooled.buffer().writeInt(0xdeadbeef).writeInt(0x00010001)));
    assertEquals(Status.EPROTO, next(bad).status());
    assertFalse(bad.isOpen());
  }

  @Test
  void unknownOpAndMalformedBodyGetErrorsAndTheConnectionKeepsServing() {
    EmbeddedChannel ch = helloDone();
    ch.writeInbound(frame(0x7f, 2, Unpooled.EMPTY_BUFFER));
    assertEquals(Status.EOPNOTSUPP, next(ch).status());
    // STAT whose name length claims more bytes than the body has.
    ch.writeInbound(frame(Op.STAT, 3, Unpooled.buffer().writeShort(50).writeByte('x')));
    Reply malformed = next(ch);
    assertEquals(Status.EBADMSG, malformed.status());
    assertEquals(3, malformed.id());
    // Trailing garbage after a complete STAT body.
    ByteBuf trailing = nameBody("obj").writeByte(1);
    ch.writeInbound(frame(Op.STAT, 4, trailing));
    assertEquals(Status.EBADMSG, next(ch).status());
    // Bad UTF-8 name.
    ch.writeInbound(
        frame(Op.STAT, 5, Unpooled.buffer().writeShort(2).writeByte(0xc3).writeByte(0x28)));
    assertEquals(Status.EBADMSG, next(ch).status());
    // READ beyond the data limit.
    ByteBuf read = nameBody("obj").writeLong(0).writeInt(FrameDescriptor.MAX_DATA + 1);
    ch.writeInbound(frame(Op.READ, 6, read));
    assertEquals(Status.EMSGSIZE, next(ch).status());
    // Still serving.
    ch.writeInbound(frame(Op.PING, 8, Unpooled.copiedBuffer("hi", StandardCharsets.US_ASCII)));
    Reply ping = next(ch);
    assertEquals(Status.OK, ping.status());
    assertArrayEquals("hi".getBytes(StandardCharsets.US_ASCII), ping.body());
    assertTrue(ch.isOpen());
    assertTrue(ops.stats.isEmpty(), "malformed requests reached the store");
  }

  @Test
  void framesSplitAcrossReadsAndCoalescedInOneReadDecode() {
    EmbeddedChannel ch = helloDone();
    ByteBuf two = Unpooled.buffer();
    two.writeBytes(frame(Op.PING, 10, Unpooled.copiedBuffer("a", StandardCharsets.US_ASCII)));
    two.writeBytes(frame(Op.PING, 11, Unpooled.copiedBuffer("b", StandardCharsets.US_ASCII)));
    ch.writeInbound(two.readRetainedSlice(5));
    assertNull(ch.readOutbound());
    ch.writeInbound(two.readRetainedSlice(two.readableBytes()));
    two.release();
    assertEquals(10, next(ch).id());
    assertEquals(11, next(ch).id());
  }

  @Test
  void pipelinedRepliesFollowCompletionOrderMatchedById() {
    EmbeddedChannel ch = helloDone();
    ch.writeInbound(frame(Op.STAT, 100, nameBody("first")));
    ch.writeInbound(frame(Op.STAT, 101, nameBody("second")));
    assertNull(ch.readOutbound());
    var first = ops.stats.poll();
    var second = ops.stats.poll();
    second.complete(new ObjectInfo(2222, 7));
    ch.runPendingTasks();
    Reply r2 = next(ch);
    assertEquals(101, r2.id());
    assertEquals(2222, Unpooled.wrappedBuffer(r2.body()).readLong());
    first.completeExceptionally(new OpException(Status.ENOENT, "first"));
    ch.runPendingTasks();
    Reply r1 = next(ch);
    assertEquals(100, r1.id());
    assertEquals(Status.ENOENT, r1.status());
  }

  @Test
  void inFlightLimitStopsReadingUntilRepliesDrain() {
    EmbeddedChannel ch =
        helloDone(new ServerLimits(2, Duration.ofSeconds(30), Duration.ofSeconds(10)));
    ch.writeInbound(frame(Op.STAT, 1, nameBody("a")));
    assertTrue(ch.config().isAutoRead());
    ch.writeInbound(frame(Op.STAT, 2, nameBody("b")));
    assertFalse(ch.config().isAutoRead());
    ops.stats.poll().complete(new ObjectInfo(1, 1));
    ch.runPendingTasks();
    assertTrue(ch.config().isAutoRead());
  }

  @Test
  void slowPartialFrameIsClosedAfterTheTimeout() {
    EmbeddedChannel ch =
        helloDone(new ServerLimits(8, Duration.ofSeconds(2), Duration.ofSeconds(10)));
    ByteBuf ping = frame(Op.PING, 9, Unpooled.copiedBuffer("slow", StandardCharsets.US_ASCII));
    ch.writeInbound(ping.readRetainedSlice(6));
    ch.advanceTimeBy(1, TimeUnit.SECONDS);
    ch.runScheduledPendingTasks();
    assertTrue(ch.isOpen());
    ch.advanceTimeBy(2, TimeUnit.SECONDS);
    ch.runScheduledPendingTasks();
    assertFalse(ch.isOpen());
    ping.release();
  }

  @Test
  void connectionWithoutHelloIsClosedAfterTheHelloTimeout() {
    EmbeddedChannel ch =
        channel(new ServerLimits(8, Duration.ofSeconds(30), Duration.ofSeconds(5)));
    ch.advanceTimeBy(6, TimeUnit.SECONDS);
    ch.runScheduledPendingTasks();
    assertFalse(ch.isOpen());
  }

  @Test
  void shardMapRoundTrips() {
    EmbeddedChannel ch = helloDone();
    ch.writeInbound(frame(Op.SHARD_MAP, 5, Unpooled.EMPTY_BUFFER));
    Reply reply = next(ch);
    assertEquals(map, ShardMap.readFrom(Unpooled.wrappedBuffer(reply.body())));
  }
}
