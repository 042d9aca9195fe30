package io.tidestore.osd.nbd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.tidestore.osd.metrics.OpLatencies;
import io.tidestore.osd.net.CountingAllocator;
import io.tidestore.osd.net.InboundBudget;
import io.tidestore.store.testing.AllocationBound;
import io.tidestore.store.testing.LogTrap;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Fuzzes the transmission phase: what a client sends after the handshake, through {@link
 * NbdRequestDecoder} and {@link NbdCommandHandler} against a 4 KiB memory image. The first input
 * byte picks the session (structured replies, base:allocation, read-only), the second the chunk
 * size the rest arrives in. The contract (NBD doc/proto.md): every whole request but NBD_CMD_DISC
 * gets exactly one reply (simple, or structured chunks up to one flagged DONE) with its cookie and
 * an errno the spec lists; a read or write past the end is an error; a bad request magic closes; a
 * connection left between requests still answers a flush. Nothing is logged with a trace; buffers
 * stay within the decoder's documented assembling limit plus what the replies carry.
 */
class NbdRequestFuzzTest {
  private static final LogTrap LOG = LogTrap.on("io.tidestore.osd");
  private static final int IMAGE = 4096;
  // The command flags doc/proto.md defines; any other makes a request EINVAL (DISC included).
  private static final int SPEC_FLAGS =
      Nbd.CMD_FLAG_FUA
          | Nbd.CMD_FLAG_NO_HOLE
          | Nbd.CMD_FLAG_DF
          | Nbd.CMD_FLAG_REQ_ONE
          | Nbd.CMD_FLAG_FAST_ZERO;
  private static final Set<Integer> ERRNOS =
      Set.of(
          0,
          Nbd.EPERM,
          Nbd.EIO,
          Nbd.ENOMEM,
          Nbd.EINVAL,
          Nbd.ENOSPC,
          Nbd.EOVERFLOW,
          Nbd.ENOTSUP,
          Nbd.ESHUTDOWN);

  @FuzzTest
  void requests(byte[] input) {
    AllocationBound.check("NBD requests", input.length, 1 << 20, 512, () -> exercise(input));
  }

  private static void exercise(byte[] input) {
    if (input.length < 2) {
      return;
    }
    int mode = input[0];
    NbdCommandHandler.Session session =
        new NbdCommandHandler.Session(
            (mode & 4) != 0, (mode & 1) != 0, (mode & 3) == 3); // base:allocation needs structured
    MemoryImage image = new MemoryImage("disk", IMAGE, false);
    EmbeddedChannel ch = new EmbeddedChannel(false, false);
    CountingAllocator buffers = new CountingAllocator();
    ch.config().setAllocator(buffers);
    ch.pipeline()
        .addLast(
            new NbdRequestDecoder(
                new InboundBudget(InboundBudget.DEFAULT_BYTES),
                NbdRequestDecoder.STALL_TIMEOUT_NANOS),
            new NbdCommandHandler(image, session, NbdServer.Limits.DEFAULT, OpLatencies.NONE));
    try {
      try {
        ch.register();
      } catch (Exception e) {
        throw new AssertionError("registering the channel", e);
      }
      NbdTestWire wire = new NbdTestWire(ch);
      int chunk = 1 + (input[1] & 0xff);
      for (int at = 2; at < input.length && ch.isActive(); at += chunk) {
        ch.writeInbound(Unpooled.wrappedBuffer(input, at, Math.min(chunk, input.length - at)));
        ch.runPendingTasks();
      }
      ByteBuf client = Unpooled.wrappedBuffer(input, 2, input.length - 2);
      boolean between = replay(client, wire.out(), ch, session);
      LOG.check();
      long bound = NbdRequestDecoder.ASSEMBLE_MAX_BYTES + (64 << 10) + 256L * input.length;
      assertTrue(buffers.asked() <= bound, "buffers of " + buffers.asked() + " bytes");
      if (between) {
        assertTrue(ch.isActive(), "the connection should still serve");
        wire.request(0, Nbd.CMD_FLUSH, 0xf1, 0, 0);
        List<Sent> flush = new ArrayList<>(List.of(new Sent(Nbd.CMD_FLUSH, 0xf1, 0, 0)));
        reply(wire.out(), flush, session);
        assertTrue(flush.isEmpty(), "a flush on a connection that survived the input");
      }
    } finally {
      ch.finishAndReleaseAll();
    }
  }

  /** A whole request the client sent, waiting for its reply. */
  private record Sent(int type, long cookie, long offset, long length) {}

  /**
   * Walks the client's requests, then matches the server's replies to them by cookie (replies may
   * come in any order, the spec says); true when the input ended between requests, open.
   */
  private static boolean replay(
      ByteBuf client, ByteBuf out, EmbeddedChannel ch, NbdCommandHandler.Session session) {
    List<Sent> sent = new ArrayList<>();
    boolean closes = false;
    boolean partial = false;
    while (client.readableBytes() >= Nbd.REQUEST_HEADER) {
      if (client.readInt() != Nbd.REQUEST_MAGIC) {
        closes = true;
        break;
      }
      int flags = client.readUnsignedShort();
      int type = client.readUnsignedShort();
      long cookie = client.readLong();
      long offset = client.readLong();
      long length = client.readUnsignedInt();
      if (type == Nbd.CMD_WRITE) {
        if (client.readableBytes() < length) {
          partial = true;
          break;
        }
        client.skipBytes((int) length);
      }
      if (type == Nbd.CMD_DISC && (flags & ~SPEC_FLAGS) == 0) {
        closes = true;
        break;
      }
      sent.add(new Sent(type, cookie, offset, length));
    }
    partial |= client.isReadable() && !closes;
    while (out.isReadable()) {
      reply(out, sent, session);
    }
    if (closes) {
      assertFalse(ch.isActive(), "a bad request magic or NBD_CMD_DISC must close");
    } else {
      assertTrue(ch.isActive(), "closed without a bad magic or NBD_CMD_DISC");
    }
    assertTrue(sent.isEmpty(), "unanswered: " + sent);
    return !partial && !closes;
  }

  /** Reads one whole reply (simple or structured) and removes the request it answers. */
  private static void reply(ByteBuf out, List<Sent> sent, NbdCommandHandler.Session session) {
    assertTrue(out.readableBytes() >= Nbd.SIMPLE_REPLY_HEADER, "a reply cut short");
    int magic = out.getInt(out.readerIndex());
    long cookie = out.getLong(out.readerIndex() + 8); // in simple and structured replies alike
    Sent request = null;
    for (Sent s : sent) {
      if (s.cookie() == cookie) {
        request = s;
        break;
      }
    }
    assertTrue(request != null, "a reply to cookie " + cookie + " nobody is waiting for");
    sent.remove(request);
    int error;
    if (magic == Nbd.SIMPLE_REPLY_MAGIC) {
      out.skipBytes(4);
      error = out.readInt();
      out.skipBytes(8);
      if (request.type() == Nbd.CMD_READ && error == 0) {
        assertFalse(session.structuredReplies(), "a simple read reply under structured replies");
        out.skipBytes((int) request.length());
      }
    } else {
      assertEquals(Nbd.STRUCTURED_REPLY_MAGIC, magic, "reply magic");
      assertTrue(session.structuredReplies(), "a structured reply nobody negotiated");
      error = chunks(out, cookie);
    }
    assertTrue(ERRNOS.contains(error), "errno " + error);
    long end = request.offset() + request.length();
    boolean pastEnd = request.offset() < 0 || end > IMAGE || end < request.offset();
    if (pastEnd && (request.type() == Nbd.CMD_READ || request.type() == Nbd.CMD_WRITE)) {
      assertNotEquals(0, error, "a " + request + " past the end succeeded");
    }
  }

  /** Reads structured chunks of {@code cookie} up to the one flagged DONE; returns the errno. */
  private static int chunks(ByteBuf out, long cookie) {
    int error = 0;
    while (true) {
      assertTrue(out.readableBytes() >= Nbd.STRUCTURED_REPLY_HEADER, "a chunk's header");
      assertEquals(Nbd.STRUCTURED_REPLY_MAGIC, out.readInt(), "chunk magic");
      int chunkFlags = out.readUnsignedShort();
      int chunkType = out.readUnsignedShort();
      assertEquals(cookie, out.readLong(), "chunks of two replies interleaved");
      long chunkLength = out.readUnsignedInt();
      assertTrue(out.readableBytes() >= chunkLength, "chunk length " + chunkLength);
      ByteBuf payload = out.readSlice((int) chunkLength);
      if (chunkType == Nbd.REPLY_TYPE_ERROR) {
        error = payload.readInt();
        assertNotEquals(0, error, "an error chunk without an errno");
      }
      if ((chunkFlags & Nbd.REPLY_FLAG_DONE) != 0) {
        return error;
      }
    }
  }
}
