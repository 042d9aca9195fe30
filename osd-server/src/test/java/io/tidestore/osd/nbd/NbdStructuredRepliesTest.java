package io.tidestore.osd.nbd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.tidestore.osd.image.BlockImage.Zeroing;
import io.tidestore.osd.metrics.OpLatencies;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Structured replies, base:allocation and the commands that came with them (BLOCK_STATUS, CACHE,
 * FAST_ZERO), byte by byte per doc/proto.md on an EmbeddedChannel.
 */
class NbdStructuredRepliesTest {
  private static final int HOLE = Nbd.STATE_HOLE | Nbd.STATE_ZERO;
  private final MemoryImage disk = new MemoryImage("disk", 1 << 20, false);
  private final MemoryImage other = new MemoryImage("other", 1 << 20, false);
  private final NbdTestWire wire =
      new NbdTestWire(
          new EmbeddedChannel(
              new NbdHandshakeHandler(
                  new MemoryExports("disk", disk, other),
                  NbdServer.Limits.DEFAULT,
                  OpLatencies.NONE)));

  private void structuredReplies() {
    wire.option(Nbd.OPT_STRUCTURED_REPLY, Unpooled.EMPTY_BUFFER);
    wire.optionReply(Nbd.OPT_STRUCTURED_REPLY, Nbd.REP_ACK);
  }

  private void metaContext(int option, int id) {
    ByteBuf context = wire.optionReply(option, Nbd.REP_META_CONTEXT);
    assertEquals(id, context.readInt());
    assertEquals(Nbd.BASE_ALLOCATION, context.toString(StandardCharsets.UTF_8));
  }

  /** Reads a BLOCK_STATUS chunk: {length, state} pairs. */
  private long[] blockStatus(long cookie) {
    ByteBuf payload = wire.chunk(cookie, Nbd.REPLY_TYPE_BLOCK_STATUS);
    assertEquals(Nbd.BASE_ALLOCATION_ID, payload.readInt());
    long[] extents = new long[payload.readableBytes() / 4];
    for (int i = 0; i < extents.length; i++) {
      extents[i] = payload.readUnsignedInt();
    }
    return extents;
  }

  @Test
  void negotiatedStructuredRepliesCarryReadsErrorsAndBlockStatus() {
    wire.greeted();
    // Meta contexts need structured replies first, as nbdkit requires.
    wire.option(Nbd.OPT_SET_META_CONTEXT, NbdTestWire.metaContexts("disk", Nbd.BASE_ALLOCATION));
    wire.optionReply(Nbd.OPT_SET_META_CONTEXT, Nbd.REP_ERR_INVALID);
    structuredReplies();
    wire.option(Nbd.OPT_LIST_META_CONTEXT, NbdTestWire.metaContexts("disk"));
    metaContext(Nbd.OPT_LIST_META_CONTEXT, 0);
    wire.optionReply(Nbd.OPT_LIST_META_CONTEXT, Nbd.REP_ACK);
    wire.option(Nbd.OPT_LIST_META_CONTEXT, NbdTestWire.metaContexts("disk", "qemu:dirty-bitmap"));
    wire.optionReply(Nbd.OPT_LIST_META_CONTEXT, Nbd.REP_ACK); // nothing of that name
    wire.option(
        Nbd.OPT_SET_META_CONTEXT,
        NbdTestWire.metaContexts("", "qemu:allocation-depth", Nbd.BASE_ALLOCATION));
    metaContext(Nbd.OPT_SET_META_CONTEXT, Nbd.BASE_ALLOCATION_ID);
    wire.optionReply(Nbd.OPT_SET_META_CONTEXT, Nbd.REP_ACK);
    wire.option(Nbd.OPT_SET_META_CONTEXT, Unpooled.buffer().writeInt(50));
    wire.optionReply(Nbd.OPT_SET_META_CONTEXT, Nbd.REP_ERR_INVALID);
    int flags = wire.go("disk"); // the empty name above meant the default image, "disk"
    int expected =
        Nbd.FLAG_SEND_DF | Nbd.FLAG_SEND_CACHE | Nbd.FLAG_SEND_FAST_ZERO | Nbd.FLAG_SEND_TRIM;
    assertEquals(expected, flags & expected, "flags 0x" + Integer.toHexString(flags));

    byte[] data = new byte[8192];
    Arrays.fill(data, (byte) 0x77);
    wire.write(1, 4096, data);
    wire.simpleReply(1, 0); // other commands keep simple replies, as nbdkit sends them
    wire.request(Nbd.CMD_FLAG_DF, Nbd.CMD_READ, 2, 4096, 8192);
    ByteBuf read = wire.chunk(2, Nbd.REPLY_TYPE_OFFSET_DATA);
    assertEquals(4096, read.readLong());
    assertEquals(8192, read.readableBytes());
    for (int i = 0; i < 8192; i++) {
      assertEquals(0x77, read.readByte());
    }
    wire.request(0, Nbd.CMD_READ, 3, (1 << 20) - 2, 4);
    wire.errorChunk(3, Nbd.EINVAL);
    wire.request(0, Nbd.CMD_READ, 4, 0, 0);
    assertFalse(wire.chunk(4, Nbd.REPLY_TYPE_NONE).isReadable());

    disk.holes = new long[] {0, 4096, 65536, 1 << 20};
    wire.request(0, Nbd.CMD_BLOCK_STATUS, 5, 0, 1 << 20);
    assertEquals(
        Arrays.toString(new long[] {4096, HOLE, 61440, 0, (1 << 20) - 65536, HOLE}),
        Arrays.toString(blockStatus(5)));
    wire.request(Nbd.CMD_FLAG_REQ_ONE, Nbd.CMD_BLOCK_STATUS, 6, 8192, 1 << 19);
    assertEquals(Arrays.toString(new long[] {57344, 0}), Arrays.toString(blockStatus(6)));
    wire.request(0, Nbd.CMD_BLOCK_STATUS, 7, 1 << 20, 4096);
    wire.errorChunk(7, Nbd.EINVAL);

    wire.request(0, Nbd.CMD_CACHE, 8, 0, 1 << 20);
    wire.simpleReply(8, 0);
    wire.request(Nbd.CMD_FLAG_FAST_ZERO, Nbd.CMD_WRITE_ZEROES, 9, 0, 4096);
    wire.simpleReply(9, 0);
    assertEquals(Zeroing.FAST, disk.lastZeroing);
    wire.request(Nbd.CMD_FLAG_NO_HOLE, Nbd.CMD_WRITE_ZEROES, 10, 0, 4096);
    wire.simpleReply(10, 0);
    assertEquals(Zeroing.ALLOCATE, disk.lastZeroing);
    wire.request(0, Nbd.CMD_TRIM, 11, 0, 4096);
    wire.simpleReply(11, 0);
    assertEquals(Zeroing.PUNCH, disk.lastZeroing);
    // Zeros that must stay allocated are never fast; FAST_ZERO belongs to WRITE_ZEROES only.
    wire.request(Nbd.CMD_FLAG_FAST_ZERO | Nbd.CMD_FLAG_NO_HOLE, Nbd.CMD_WRITE_ZEROES, 12, 0, 4096);
    wire.simpleReply(12, Nbd.ENOTSUP);
    wire.request(Nbd.CMD_FLAG_FAST_ZERO, Nbd.CMD_TRIM, 13, 0, 4096);
    wire.simpleReply(13, Nbd.EINVAL);
    assertTrue(wire.ch.isOpen());
  }

  @Test
  void blockStatusNeedsBaseAllocationSelectedForThisExport() {
    wire.greeted();
    structuredReplies();
    wire.option(Nbd.OPT_SET_META_CONTEXT, NbdTestWire.metaContexts("other", Nbd.BASE_ALLOCATION));
    metaContext(Nbd.OPT_SET_META_CONTEXT, Nbd.BASE_ALLOCATION_ID);
    wire.optionReply(Nbd.OPT_SET_META_CONTEXT, Nbd.REP_ACK);
    wire.go("disk");
    wire.request(0, Nbd.CMD_BLOCK_STATUS, 1, 0, 4096);
    wire.errorChunk(1, Nbd.EINVAL);
    assertTrue(wire.ch.isOpen());
  }

  @Test
  void withoutStructuredRepliesReadsStaySimpleAndBlockStatusIsRefused() {
    wire.greeted();
    int flags = wire.go("disk");
    assertEquals(0, flags & Nbd.FLAG_SEND_DF);
    wire.request(0, Nbd.CMD_READ, 1, 0, 16);
    wire.simpleReply(1, 0).skipBytes(16);
    wire.request(0, Nbd.CMD_BLOCK_STATUS, 2, 0, 4096);
    wire.simpleReply(2, Nbd.EINVAL);
  }

  /** A client with the r cap only: EPERM for every change, and the connection keeps reading. */
  @Test
  void aReadOnlySessionRefusesChangesWithEpermAndKeepsReading() {
    NbdTestWire ro =
        new NbdTestWire(
            new EmbeddedChannel(
                new NbdRequestDecoder(),
                new NbdCommandHandler(
                    disk,
                    new NbdCommandHandler.Session(true, false, false),
                    NbdServer.Limits.DEFAULT,
                    OpLatencies.NONE)));
    disk.bytes()[5] = 9;
    ro.write(1, 0, new byte[512]);
    ro.simpleReply(1, Nbd.EPERM);
    ro.request(0, Nbd.CMD_TRIM, 2, 0, 4096);
    ro.simpleReply(2, Nbd.EPERM);
    ro.request(Nbd.CMD_FLAG_NO_HOLE, Nbd.CMD_WRITE_ZEROES, 3, 0, 4096);
    ro.simpleReply(3, Nbd.EPERM);
    ro.request(0, Nbd.CMD_CACHE, 4, 0, 4096);
    ro.simpleReply(4, 0);
    ro.request(0, Nbd.CMD_READ, 5, 0, 8);
    ByteBuf data = ro.simpleReply(5, 0);
    data.skipBytes(5);
    assertEquals(9, data.readByte());
    assertTrue(ro.ch.isOpen());
  }
}
