package io.tidestore.osd.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.tidestore.osd.net.CountingAllocator;
import io.tidestore.store.testing.AllocationBound;
import io.tidestore.store.testing.LogTrap;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Fuzzes the object protocol as a server reads it: {@link FrameDecoder} and {@link
 * ObjectProtocolHandler} (every op's request body) over ops that succeed at once. The first input
 * byte picks the chunk size the rest arrives in. The contract (docs/protocol.md): a length outside
 * [header, FrameDescriptor.MAX_LENGTH] gets one EMSGSIZE reply and a close, nothing of that size
 * buffered; every whole frame gets exactly one reply with its request id and a status of {@link
 * Status} (in any order); only EPROTO and EMSGSIZE close (each may also refuse just one op); a
 * connection left between frames still answers a PING. Nothing is logged with a trace; allocation
 * stays proportional to the input.
 */
class ProtocolFrameFuzzTest {
  private static final LogTrap LOG = LogTrap.on("io.tidestore.osd");
  private static final Set<Integer> STATUSES =
      Set.of(
          Status.OK,
          Status.EPERM,
          Status.ENOENT,
          Status.EIO,
          Status.ENOMEM,
          Status.EAGAIN,
          Status.EEXIST,
          Status.EINVAL,
          Status.EFBIG,
          Status.ENOSPC,
          Status.EROFS,
          Status.ENAMETOOLONG,
          Status.ENODATA,
          Status.EPROTO,
          Status.EBADMSG,
          Status.EMSGSIZE,
          Status.EOPNOTSUPP,
          Status.ESHUTDOWN);

  @FuzzTest
  void frames(byte[] input) {
    AllocationBound.check("object protocol", input.length, 1 << 20, 256, () -> exercise(input));
  }

  private static void exercise(byte[] input) {
    if (input.length < 1) {
      return;
    }
    ShardMap map =
        new ShardMap(FrameDescriptor.PLACEMENT_CRC32C, new int[] {6801}, new int[] {0, 0});
    EmbeddedChannel ch = new EmbeddedChannel(false, false);
    CountingAllocator buffers = new CountingAllocator();
    ch.config().setAllocator(buffers);
    ServerLimits limits = ServerLimits.DEFAULT;
    ch.pipeline()
        .addLast(
            new FrameDecoder(limits.partialFrameTimeout().toNanos(), true),
            new ObjectProtocolHandler(
                new ProtocolTestSupport.Context(new CountingOps(), map), limits));
    try {
      try {
        ch.register();
      } catch (Exception e) {
        throw new AssertionError("registering the channel", e);
      }
      ch.freezeTime();
      int chunk = 1 + (input[0] & 0xff);
      for (int at = 1; at < input.length && ch.isActive(); at += chunk) {
        ch.writeInbound(Unpooled.wrappedBuffer(input, at, Math.min(chunk, input.length - at)));
        ch.runPendingTasks();
      }
      ByteBuf out = Unpooled.buffer();
      drain(ch, out);
      boolean between = replay(Unpooled.wrappedBuffer(input, 1, input.length - 1), out, ch);
      LOG.check();
      assertTrue(buffers.asked() <= (64 << 10) + 64L * input.length, "buffers " + buffers.asked());
      if (between) {
        ch.writeInbound(ProtocolTestSupport.frame(Op.PING, 0x77, Unpooled.EMPTY_BUFFER));
        drain(ch, out);
        assertTrue(out.isReadable(), "a live connection left PING unanswered");
        assertEquals(0x77L, ProtocolTestSupport.parse(out).id(), "PING's reply");
      }
    } finally {
      ch.finishAndReleaseAll();
    }
  }

  private static void drain(EmbeddedChannel ch, ByteBuf out) {
    ch.runPendingTasks();
    for (ByteBuf part; (part = ch.readOutbound()) != null; ) {
      out.writeBytes(part);
      part.release();
    }
  }

  /**
   * Walks the client's frames, then matches the replies to them by request id (replies may come in
   * any order); true when the input ended between frames and the connection is open.
   */
  private static boolean replay(ByteBuf client, ByteBuf out, EmbeddedChannel ch) {
    List<Long> sent = new ArrayList<>();
    long badLength = -1;
    long badId = 0;
    while (client.readableBytes() >= 4) {
      long length = client.getUnsignedInt(client.readerIndex());
      boolean header = client.readableBytes() >= FrameDescriptor.HEADER_LENGTH;
      if (length < FrameDescriptor.MIN_LENGTH || length > FrameDescriptor.MAX_LENGTH) {
        if (header || length < FrameDescriptor.MIN_LENGTH) {
          badLength = length;
          // The id if the header had arrived when the length was refused (the chunking decides).
          badId = header ? client.getLong(client.readerIndex() + 8) : 0;
        }
        break;
      }
      if (client.readableBytes() < 4 + length) {
        break;
      }
      sent.add(client.getLong(client.readerIndex() + 8));
      client.skipBytes(4 + (int) length);
    }
    boolean closing = false;
    int lastStatus = -1;
    while (out.isReadable()) {
      assertTrue(out.readableBytes() >= 4, "a reply cut short");
      long length = out.getUnsignedInt(out.readerIndex());
      assertTrue(out.readableBytes() >= 4 + length, "a reply cut short");
      ProtocolTestSupport.Reply reply = ProtocolTestSupport.parse(out);
      // Told apart by FrameDecoder's message, not by id: an op refused with EMSGSIZE (a read
      // length above its limit) may carry the same id, 0 say, in either order.
      boolean refusal =
          badLength >= 0
              && reply.status() == Status.EMSGSIZE
              && reply.message().startsWith("frame length ")
              && (reply.id() == badId || reply.id() == 0);
      if (refusal) {
        badLength = -2; // answered; a second refusal would be a reply nobody asked for
      } else {
        assertTrue(sent.remove(reply.id()), "a reply to id " + reply.id() + " nobody sent");
      }
      assertTrue(STATUSES.contains(reply.status()), "status " + reply.status());
      lastStatus = reply.status();
      closing |= reply.status() == Status.EPROTO || reply.status() == Status.EMSGSIZE;
    }
    // Unanswered only when an earlier EPROTO closed the connection before it arrived.
    assertTrue(badLength < 0 || closing, "frame length " + badLength + " without EMSGSIZE");
    if (!ch.isActive()) {
      assertTrue(closing, "closed without EPROTO or EMSGSIZE (last status " + lastStatus + ")");
      return false;
    }
    // Open after EPROTO or EMSGSIZE is right when they refused one op (a second HELLO, a payload
    // above its limit), not the connection; a refused frame length always closes.
    assertTrue(badLength != -2, "EMSGSIZE for a frame length, but the connection stays open");
    assertTrue(sent.isEmpty(), "unanswered ids " + sent);
    return !client.isReadable();
  }
}
