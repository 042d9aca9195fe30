package io.tidestore.osd.nbd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.tidestore.osd.metrics.OpLatencies;
import io.tidestore.osd.net.CountingAllocator;
import io.tidestore.store.testing.AllocationBound;
import io.tidestore.store.testing.LogTrap;

/**
 * Fuzzes the fixed newstyle handshake with what a client sends after the greeting (client flags,
 * then options), cut into chunks of a size the first input byte picks. The contract, from the NBD
 * spec (doc/proto.md): every complete option gets replies to that option ending in an ACK or an
 * error reply, in order; a bad option magic or unknown client flags close the connection;
 * NBD_OPT_ABORT is acknowledged and closes; EXPORT_NAME and GO either start transmission or (for
 * EXPORT_NAME, which has no error reply) close. A connection still negotiating at the end answers
 * one more option. Nothing is logged with a trace, and the allocation stays proportional to the
 * input (an option's length field is never trusted beyond Nbd.MAX_OPTION_LENGTH).
 */
class NbdHandshakeFuzzTest {
  private static final LogTrap LOG = LogTrap.on("io.tidestore.osd");

  @FuzzTest
  void handshake(byte[] input) {
    // The harness feeds the input in chunks of as little as one byte, each wrapped in a ByteBuf
    // and passed through the channel's pipeline: some 130 bytes of heap a chunk that are its own,
    // not the handler's (19 KB discarded one byte at a time took 2.4 MB). 192 a byte covers them.
    AllocationBound.check("NBD handshake", input.length, 1 << 20, 192, () -> exercise(input));
  }

  private static void exercise(byte[] input) {
    if (input.length == 0) {
      return;
    }
    MemoryExports exports =
        new MemoryExports(
            "disk", new MemoryImage("disk", 4096, false), new MemoryImage("ro", 8192, true));
    // Unpooled and counted: what the handler asks for is allocated as asked (direct included).
    EmbeddedChannel ch =
        new EmbeddedChannel(
            false,
            false,
            new NbdHandshakeHandler(exports, NbdServer.Limits.DEFAULT, OpLatencies.NONE));
    CountingAllocator buffers = new CountingAllocator();
    ch.config().setAllocator(buffers);
    try {
      ch.register();
    } catch (Exception e) {
      throw new AssertionError("registering the channel", e);
    }
    try {
      NbdTestWire wire = new NbdTestWire(ch);
      ByteBuf out = wire.out();
      assertEquals(Nbd.NBDMAGIC, out.readLong());
      assertEquals(Nbd.IHAVEOPT, out.readLong());
      out.skipBytes(2);
      int chunk = 1 + (input[0] & 0xff);
      for (int at = 1; at < input.length && ch.isActive(); at += chunk) {
        ch.writeInbound(Unpooled.wrappedBuffer(input, at, Math.min(chunk, input.length - at)));
        ch.runPendingTasks();
      }
      ByteBuf client = Unpooled.wrappedBuffer(input, 1, input.length - 1);
      Ending ending = replay(client, wire.out(), ch);
      LOG.check();
      // Replies are small; a write's header after GO may get its payload buffer (documented).
      long bound = NbdRequestDecoder.ASSEMBLE_MAX_BYTES + (64 << 10) + 256L * input.length;
      assertTrue(buffers.asked() <= bound, "buffers of " + buffers.asked() + " bytes");
      switch (ending) {
        case CLOSED -> assertFalse(ch.isActive(), "the connection should be closed");
        case TRANSMISSION -> {} // what follows the handshake is NbdRequestFuzzTest's
        case PARTIAL -> assertTrue(ch.isActive(), "a partial option must be waited for");
        case NEGOTIATING -> {
          assertTrue(ch.isActive(), "the connection should still negotiate");
          wire.option(Nbd.OPT_ABORT, Unpooled.EMPTY_BUFFER);
          wire.optionReply(Nbd.OPT_ABORT, Nbd.REP_ACK);
          ch.runPendingTasks();
          assertFalse(ch.isActive(), "NBD_OPT_ABORT closes");
        }
      }
    } finally {
      ch.finishAndReleaseAll();
    }
  }

  enum Ending {
    CLOSED,
    TRANSMISSION,
    PARTIAL,
    NEGOTIATING
  }

  /** Walks what the client sent, checking the server's replies to it in {@code out}. */
  private static Ending replay(ByteBuf client, ByteBuf out, EmbeddedChannel ch) {
    if (client.readableBytes() < 4) {
      assertFalse(out.isReadable(), "a reply before the client flags");
      return Ending.PARTIAL;
    }
    long flags = client.readUnsignedInt();
    boolean noZeroes = (flags & Nbd.CLIENT_FLAG_NO_ZEROES) != 0;
    if ((flags & ~(long) (Nbd.CLIENT_FLAG_FIXED_NEWSTYLE | Nbd.CLIENT_FLAG_NO_ZEROES)) != 0) {
      assertFalse(out.isReadable(), "a reply after unknown client flags");
      return Ending.CLOSED;
    }
    while (client.readableBytes() >= 16) {
      if (client.readLong() != Nbd.IHAVEOPT) {
        assertFalse(out.isReadable(), "a reply to an option with a bad magic");
        return Ending.CLOSED;
      }
      int option = client.readInt();
      long length = client.readUnsignedInt();
      if (client.readableBytes() < length) {
        assertFalse(out.isReadable(), "a reply to an option not yet whole");
        return Ending.PARTIAL;
      }
      client.skipBytes((int) length);
      if (length > Nbd.MAX_OPTION_LENGTH) {
        assertEquals(Nbd.REP_ERR_TOO_BIG, finalReply(out, option), "an over-long option");
        continue;
      }
      if (option == Nbd.OPT_EXPORT_NAME) {
        if (!ch.isActive() && !out.isReadable()) {
          return Ending.CLOSED; // no such image (or not UTF-8): EXPORT_NAME has no error reply
        }
        // size, flags and (unless NO_ZEROES) 124 zeroes; then transmission replies, if any
        assertTrue(out.readableBytes() >= 10 + (noZeroes ? 0 : 124), "the EXPORT_NAME reply");
        return Ending.TRANSMISSION;
      }
      int reply = finalReply(out, option);
      if (option == Nbd.OPT_ABORT) {
        assertEquals(Nbd.REP_ACK, reply, "NBD_OPT_ABORT");
        return Ending.CLOSED;
      }
      if (option == Nbd.OPT_GO && reply == Nbd.REP_ACK) {
        assertFalse(out.isReadable() && !client.isReadable(), "bytes after GO's ACK");
        return Ending.TRANSMISSION;
      }
    }
    assertFalse(out.isReadable(), "a reply nobody asked for");
    return client.isReadable() ? Ending.PARTIAL : Ending.NEGOTIATING;
  }

  /** Reads replies to {@code option} up to the final one (an ACK or an error); returns its type. */
  private static int finalReply(ByteBuf out, int option) {
    while (true) {
      assertTrue(out.readableBytes() >= 20, "an option without its final reply");
      assertEquals(Nbd.OPTION_REPLY_MAGIC, out.readLong(), "option reply magic");
      assertEquals(option, out.readInt(), "the reply names another option");
      int type = out.readInt();
      long length = out.readUnsignedInt();
      assertTrue(length <= 8192 && out.readableBytes() >= length, "reply length " + length);
      out.skipBytes((int) length);
      if (type == Nbd.REP_ACK || (type & Nbd.REP_FLAG_ERROR) != 0) {
        return type;
      }
      assertTrue(
          type == Nbd.REP_SERVER || type == Nbd.REP_INFO || type == Nbd.REP_META_CONTEXT,
          "unknown reply type " + type);
    }
  }
}
