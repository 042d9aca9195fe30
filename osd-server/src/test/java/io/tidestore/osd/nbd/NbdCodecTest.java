package io.tidestore.osd.nbd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.tidestore.osd.metrics.OpLatencies;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** The handshake and transmission handlers on an EmbeddedChannel, byte by byte per the spec. */
class NbdCodecTest {
  private final MemoryImage disk = new MemoryImage("disk", 1 << 20, false);
  private final MemoryImage ro = new MemoryImage("ro", 8192, true);
  private final MemoryExports exports = new MemoryExports("disk", disk, ro);
  private final ByteBuf out = Unpooled.buffer();
  private final EmbeddedChannel ch =
      new EmbeddedChannel(
          new NbdHandshakeHandler(exports, NbdServer.Limits.DEFAULT, OpLatencies.NONE));

  private ByteBuf out() {
    ch.runPendingTasks();
    for (ByteBuf part; (part = ch.readOutbound()) != null; ) {
      out.writeBytes(part);
      part.release();
    }
    return out;
  }

  private void greeted(int clientFlags) {
    ByteBuf o = out();
    assertEquals(Nbd.NBDMAGIC, o.readLong());
    assertEquals(Nbd.IHAVEOPT, o.readLong());
    assertEquals(Nbd.FLAG_FIXED_NEWSTYLE | Nbd.FLAG_NO_ZEROES, o.readUnsignedShort());
    ch.writeInbound(Unpooled.buffer().writeInt(clientFlags));
  }

  private void option(int option, ByteBuf data) {
    ByteBuf frame = Unpooled.buffer().writeLong(Nbd.IHAVEOPT).writeInt(option);
    frame.writeInt(data.readableBytes()).writeBytes(data);
    ch.writeInbound(frame);
  }

  private static ByteBuf goData(String name, int... infos) {
    byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
    ByteBuf data =
        Unpooled.buffer().writeInt(bytes.length).writeBytes(bytes).writeShort(infos.length);
    for (int info : infos) {
      data.writeShort(info);
    }
    return data;
  }

  /** Reads one option reply; returns its data. */
  private ByteBuf optionReply(int option, int type) {
    ByteBuf o = out();
    assertEquals(Nbd.OPTION_REPLY_MAGIC, o.readLong());
    assertEquals(option, o.readInt());
    assertEquals(type, o.readInt(), "reply type");
    return o.readSlice(o.readInt());
  }

  private void go(String name) {
    greeted(Nbd.CLIENT_FLAG_FIXED_NEWSTYLE | Nbd.CLIENT_FLAG_NO_ZEROES);
    option(Nbd.OPT_GO, goData(name, Nbd.INFO_BLOCK_SIZE));
    ByteBuf export = optionReply(Nbd.OPT_GO, Nbd.REP_INFO);
    assertEquals(Nbd.INFO_EXPORT, export.readUnsignedShort());
    optionReply(Nbd.OPT_GO, Nbd.REP_INFO);
    optionReply(Nbd.OPT_GO, Nbd.REP_ACK);
  }

  private void request(int flags, int type, long cookie, long offset, long length, byte[] payload) {
    ByteBuf r = Unpooled.buffer().writeInt(Nbd.REQUEST_MAGIC).writeShort(flags).writeShort(type);
    r.writeLong(cookie).writeLong(offset).writeInt((int) length);
    if (payload != null) {
      r.writeBytes(payload);
    }
    ch.writeInbound(r);
  }

  /** Reads a simple reply, checks cookie and error, returns it for data reads. */
  private ByteBuf simpleReply(long cookie, int error) {
    ByteBuf o = out();
    assertEquals(Nbd.SIMPLE_REPLY_MAGIC, o.readInt());
    assertEquals(error, o.readInt(), "errno");
    assertEquals(cookie, o.readLong(), "cookie");
    return o;
  }

  @Test
  void listInfoUnknownAndUnsupportedOptions() {
    greeted(Nbd.CLIENT_FLAG_FIXED_NEWSTYLE);
    option(Nbd.OPT_LIST, Unpooled.EMPTY_BUFFER);
    ByteBuf first = optionReply(Nbd.OPT_LIST, Nbd.REP_SERVER);
    assertEquals(4, first.readInt());
    assertEquals("disk", first.toString(StandardCharsets.UTF_8));
    optionReply(Nbd.OPT_LIST, Nbd.REP_SERVER);
    optionReply(Nbd.OPT_LIST, Nbd.REP_ACK);

    option(Nbd.OPT_INFO, goData("", Nbd.INFO_NAME, Nbd.INFO_BLOCK_SIZE));
    ByteBuf export = optionReply(Nbd.OPT_INFO, Nbd.REP_INFO);
    assertEquals(Nbd.INFO_EXPORT, export.readUnsignedShort());
    assertEquals(1 << 20, export.readLong());
    int flags = export.readUnsignedShort();
    assertTrue((flags & Nbd.FLAG_CAN_MULTI_CONN) != 0);
    assertTrue((flags & Nbd.FLAG_SEND_WRITE_ZEROES) != 0);
    assertEquals(0, flags & Nbd.FLAG_READ_ONLY);
    ByteBuf name = optionReply(Nbd.OPT_INFO, Nbd.REP_INFO);
    assertEquals(Nbd.INFO_NAME, name.readUnsignedShort());
    assertEquals("disk", name.toString(StandardCharsets.UTF_8));
    ByteBuf sizes = optionReply(Nbd.OPT_INFO, Nbd.REP_INFO);
    assertEquals(Nbd.INFO_BLOCK_SIZE, sizes.readUnsignedShort());
    assertEquals(1, sizes.readInt());
    assertEquals(4096, sizes.readInt());
    assertEquals(32 << 20, sizes.readInt());
    optionReply(Nbd.OPT_INFO, Nbd.REP_ACK);

    option(Nbd.OPT_GO, goData("nope"));
    optionReply(Nbd.OPT_GO, Nbd.REP_ERR_UNKNOWN);
    option(99, Unpooled.EMPTY_BUFFER); // no such option
    optionReply(99, Nbd.REP_ERR_UNSUP);
    option(Nbd.OPT_GO, Unpooled.buffer().writeInt(100).writeByte('x')); // name longer than data
    optionReply(Nbd.OPT_GO, Nbd.REP_ERR_INVALID);
    option(Nbd.OPT_LIST, Unpooled.buffer().writeByte(1));
    optionReply(Nbd.OPT_LIST, Nbd.REP_ERR_INVALID);
    // Over-long option data is skipped as it streams in, never buffered, then refused.
    ch.writeInbound(
        Unpooled.buffer().writeLong(Nbd.IHAVEOPT).writeInt(Nbd.OPT_INFO).writeInt(100_000));
    ch.writeInbound(Unpooled.wrappedBuffer(new byte[60_000]));
    assertFalse(out().isReadable());
    ch.writeInbound(Unpooled.wrappedBuffer(new byte[40_000]));
    optionReply(Nbd.OPT_INFO, Nbd.REP_ERR_TOO_BIG);
    // Negotiation goes on.
    option(Nbd.OPT_ABORT, Unpooled.EMPTY_BUFFER);
    optionReply(Nbd.OPT_ABORT, Nbd.REP_ACK);
    assertFalse(ch.isOpen());
  }

  @Test
  void abortAcksAndCloses() {
    greeted(Nbd.CLIENT_FLAG_FIXED_NEWSTYLE);
    option(Nbd.OPT_ABORT, Unpooled.EMPTY_BUFFER);
    optionReply(Nbd.OPT_ABORT, Nbd.REP_ACK);
    assertFalse(ch.isOpen());
  }

  @Test
  void badOptionMagicAndUnknownClientFlagsClose() {
    greeted(Nbd.CLIENT_FLAG_FIXED_NEWSTYLE);
    ch.writeInbound(Unpooled.buffer().writeLong(0x1234).writeLong(0));
    assertFalse(ch.isOpen());
    EmbeddedChannel other =
        new EmbeddedChannel(
            new NbdHandshakeHandler(exports, NbdServer.Limits.DEFAULT, OpLatencies.NONE));
    other.writeInbound(Unpooled.buffer().writeInt(0x80));
    assertFalse(other.isOpen());
  }

  @Test
  void exportNameOptionAnswersWithSizeFlagsAndPadding() {
    greeted(Nbd.CLIENT_FLAG_FIXED_NEWSTYLE);
    option(Nbd.OPT_EXPORT_NAME, Unpooled.copiedBuffer("ro", StandardCharsets.UTF_8));
    ByteBuf o = out();
    assertEquals(8192, o.readLong());
    assertTrue((o.readUnsignedShort() & Nbd.FLAG_READ_ONLY) != 0);
    assertEquals(124, o.readableBytes()); // no NO_ZEROES from this client
    o.skipBytes(124);
    request(0, Nbd.CMD_WRITE, 1, 0, 4, new byte[] {1, 2, 3, 4});
    simpleReply(1, Nbd.EPERM);
    request(0, Nbd.CMD_READ, 2, 0, 4, null);
    assertEquals(4, simpleReply(2, 0).readableBytes());
  }

  @Test
  void transmissionCommandsAndErrors() {
    go("");
    byte[] data = new byte[8192];
    Arrays.fill(data, (byte) 0x5a);
    request(Nbd.CMD_FLAG_FUA, Nbd.CMD_WRITE, 11, 4096, data.length, data);
    simpleReply(11, 0);
    request(0, Nbd.CMD_READ, 12, 4096, 8192, null);
    ByteBuf read = simpleReply(12, 0);
    byte[] back = new byte[8192];
    read.readBytes(back);
    assertArrayEquals(data, back);
    request(0, Nbd.CMD_WRITE_ZEROES, 13, 4096, 4096, null);
    simpleReply(13, 0);
    request(0, Nbd.CMD_TRIM, 14, 8192, 4096, null);
    simpleReply(14, 0);
    assertEquals(0, disk.bytes()[8192 + 4095]);
    request(0, Nbd.CMD_FLUSH, 15, 0, 0, null);
    simpleReply(15, 0);
    assertEquals(1, disk.flushes);

    // Out of range: ENOSPC for writes, EINVAL for reads; unknown command and flag: EINVAL.
    request(0, Nbd.CMD_WRITE, 20, (1 << 20) - 2, 4, new byte[4]);
    simpleReply(20, Nbd.ENOSPC);
    request(0, Nbd.CMD_READ, 21, (1 << 20) - 2, 4, null);
    simpleReply(21, Nbd.EINVAL);
    request(0, Nbd.CMD_READ, 22, -1L, 4, null);
    simpleReply(22, Nbd.EINVAL);
    request(0, 42, 23, 0, 0, null);
    simpleReply(23, Nbd.EINVAL);
    request(1 << 7, Nbd.CMD_READ, 24, 0, 1, null);
    simpleReply(24, Nbd.EINVAL);
    // An oversized write payload is skipped as it streams in, and refused only once all of it
    // is gone: a client still sending it cannot match a reply yet (libnbd drops the connection).
    ch.writeInbound(
        Unpooled.buffer()
            .writeInt(Nbd.REQUEST_MAGIC)
            .writeShort(0)
            .writeShort(Nbd.CMD_WRITE)
            .writeLong(25)
            .writeLong(0)
            .writeInt((32 << 20) + 1));
    for (int i = 0; i < 32; i++) {
      ch.writeInbound(Unpooled.wrappedBuffer(new byte[1 << 20]));
      assertFalse(out().isReadable(), "refused before its payload was read");
    }
    ch.writeInbound(Unpooled.wrappedBuffer(new byte[1]));
    simpleReply(25, Nbd.EINVAL);
    request(0, Nbd.CMD_READ, 26, 0, 1, null);
    simpleReply(26, 0).skipBytes(1);
    assertTrue(ch.isOpen());
  }

  @Test
  void slowReadDoesNotHoldBackFastOnesAndDiscWaitsForIt() {
    disk.slowOffset = 65536;
    go("disk");
    request(0, Nbd.CMD_READ, 100, 65536, 512, null);
    request(0, Nbd.CMD_READ, 101, 0, 512, null);
    simpleReply(101, 0).skipBytes(512);
    request(0, Nbd.CMD_DISC, 102, 0, 0, null);
    assertTrue(ch.isOpen(), "closed before the outstanding read was answered");
    disk.slowRead.complete(null);
    simpleReply(100, 0).skipBytes(512);
    ch.runPendingTasks();
    assertFalse(ch.isOpen());
  }

  @Test
  void slowImageLookupStopsReadingThenGoesOnWithBufferedOptions() {
    exports.gate = new java.util.concurrent.CompletableFuture<>();
    greeted(Nbd.CLIENT_FLAG_FIXED_NEWSTYLE | Nbd.CLIENT_FLAG_NO_ZEROES);
    option(Nbd.OPT_INFO, goData("ro"));
    assertFalse(ch.config().isAutoRead(), "kept reading while the lookup was pending");
    option(Nbd.OPT_GO, goData("disk")); // pipelined behind the pending INFO
    assertFalse(out().isReadable());
    exports.gate.complete(null);
    ByteBuf export = optionReply(Nbd.OPT_INFO, Nbd.REP_INFO);
    assertEquals(Nbd.INFO_EXPORT, export.readUnsignedShort());
    assertEquals(8192, export.readLong());
    optionReply(Nbd.OPT_INFO, Nbd.REP_INFO);
    optionReply(Nbd.OPT_INFO, Nbd.REP_ACK);
    ByteBuf go = optionReply(Nbd.OPT_GO, Nbd.REP_INFO);
    go.readUnsignedShort();
    assertEquals(1 << 20, go.readLong());
    optionReply(Nbd.OPT_GO, Nbd.REP_INFO);
    optionReply(Nbd.OPT_GO, Nbd.REP_ACK);
    assertTrue(ch.config().isAutoRead());
    request(0, Nbd.CMD_READ, 7, 0, 16, null);
    simpleReply(7, 0).skipBytes(16);
  }

  /** Counts flushes and the reply bytes written before each, at the channel end of the pipeline. */
  @SuppressWarnings("FutureReturnValueIgnored") // passes the caller's promise on
  private static final class FlushCounter extends ChannelOutboundHandlerAdapter {
    final List<Long> bytesAtFlush = new ArrayList<>();
    long written;

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      written += ((ByteBuf) msg).readableBytes();
      ctx.write(msg, promise);
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
      bytesAtFlush.add(written);
      ctx.flush();
    }
  }

  /** Sends {@code count} reads of {@code length} bytes in one inbound buffer: one read batch. */
  private void readBatch(int count, int length) {
    ByteBuf batch = Unpooled.buffer();
    for (int i = 0; i < count; i++) {
      batch.writeInt(Nbd.REQUEST_MAGIC).writeShort(0).writeShort(Nbd.CMD_READ);
      batch.writeLong(1000 + i).writeLong((long) i * length).writeInt(length);
    }
    ch.writeInbound(batch);
  }

  @Test
  void largeRepliesAreFlushedWithinTheirBatchSmallOnesOncePerBatch() {
    go("disk");
    out();
    FlushCounter counter = new FlushCounter();
    ch.pipeline().addFirst(counter);
    int reply = Nbd.SIMPLE_REPLY_HEADER + 65536;
    int perFlush = (NbdCommandHandler.FLUSH_BYTES + reply - 1) / reply; // 4 at 256 KiB
    readBatch(2 * perFlush + 1, 65536);
    // Two flushes as the buffered replies reach FLUSH_BYTES, one for the last at the batch's end.
    assertEquals(
        List.of((long) perFlush * reply, 2L * perFlush * reply, (2L * perFlush + 1) * reply),
        counter.bytesAtFlush);
    for (int i = 0; i < 2 * perFlush + 1; i++) {
      simpleReply(1000 + i, 0).skipBytes(65536);
    }

    counter.bytesAtFlush.clear();
    counter.written = 0;
    readBatch(32, 4096);
    assertEquals(List.of(32L * (Nbd.SIMPLE_REPLY_HEADER + 4096)), counter.bytesAtFlush);
    for (int i = 0; i < 32; i++) {
      simpleReply(1000 + i, 0).skipBytes(4096);
    }
  }

  /** Direct buffers handed out to the channel, to check that each one is released. */
  private static final class TrackingAllocator extends AbstractByteBufAllocator {
    final List<ByteBuf> direct = new ArrayList<>();

    TrackingAllocator() {
      super(false);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
      return Unpooled.buffer(initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
      ByteBuf b = Unpooled.directBuffer(initialCapacity, maxCapacity);
      direct.add(b);
      return b;
    }

    @Override
    public boolean isDirectBufferPooled() {
      return false;
    }
  }

  @Test
  void writesArrivingInPiecesAreAssembledAndAPartOneIsFreedWhenTheClientGoes() {
    TrackingAllocator alloc = new TrackingAllocator();
    ch.config().setAllocator(alloc);
    go("disk");
    out();
    byte[] data = new byte[300_000 - 300_000 % 4096];
    new Random(7).nextBytes(data);
    ByteBuf frame = Unpooled.buffer().writeInt(Nbd.REQUEST_MAGIC).writeShort(0);
    frame.writeShort(Nbd.CMD_WRITE).writeLong(31).writeLong(8192).writeInt(data.length);
    frame.writeBytes(data);
    // A read request right behind the write, in the same pieces: header split, odd sizes.
    frame.writeInt(Nbd.REQUEST_MAGIC).writeShort(0).writeShort(Nbd.CMD_READ);
    frame.writeLong(32).writeLong(8192).writeInt(data.length);
    int[] pieces = {5, 23, 1, 4095, 65536, 7, 65536, 100_000};
    for (int i = 0; frame.isReadable(); i++) {
      ch.writeInbound(
          frame.readRetainedSlice(Math.min(pieces[i % pieces.length], frame.readableBytes())));
    }
    frame.release();
    simpleReply(31, 0);
    byte[] back = new byte[data.length];
    simpleReply(32, 0).readBytes(back);
    assertArrayEquals(data, back);
    assertArrayEquals(data, Arrays.copyOfRange(disk.bytes(), 8192, 8192 + data.length));

    // A write cut off in its payload: the buffer it was being assembled in goes with the channel.
    ByteBuf cut = Unpooled.buffer().writeInt(Nbd.REQUEST_MAGIC).writeShort(0);
    cut.writeShort(Nbd.CMD_WRITE).writeLong(33).writeLong(0).writeInt(65536);
    ch.writeInbound(cut.writeBytes(new byte[1000]));
    ch.close();
    out();
    assertFalse(alloc.direct.isEmpty());
    for (ByteBuf b : alloc.direct) {
      assertEquals(0, b.refCnt(), "a direct buffer outlived the connection");
    }
  }

  /** Collects what {@code logger} logs while the test runs {@code body}. */
  private static List<LogRecord> logged(String logger, Runnable body) {
    List<LogRecord> records = new ArrayList<>();
    Handler handler =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            records.add(record);
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    Logger log = Logger.getLogger(logger);
    log.addHandler(handler);
    try {
      body.run();
    } finally {
      log.removeHandler(handler);
    }
    return records;
  }

  @Test
  void aClientThatNeverNegotiatesIsClosedAtTheHandshakeDeadlineWithOneLine() {
    NbdServer.Limits limits = new NbdServer.Limits(128, Duration.ofSeconds(5));
    EmbeddedChannel silent =
        new EmbeddedChannel(new NbdHandshakeHandler(exports, limits, OpLatencies.NONE));
    List<LogRecord> records =
        logged(
            NbdHandshakeHandler.class.getName(),
            () -> {
              silent.advanceTimeBy(4, TimeUnit.SECONDS);
              silent.runScheduledPendingTasks();
              assertTrue(silent.isOpen(), "closed before the deadline");
              silent.advanceTimeBy(2, TimeUnit.SECONDS);
              silent.runScheduledPendingTasks();
            });
    assertFalse(silent.isOpen());
    assertEquals(1, records.size(), "log lines");
    assertTrue(records.getFirst().getMessage().contains("handshake not done in 5000 ms"));
    silent.checkException();
    silent.finishAndReleaseAll();
  }

  @Test
  void theHandshakeDeadlineStopsOnceTransmissionStarts() {
    EmbeddedChannel quick =
        new EmbeddedChannel(
            new NbdHandshakeHandler(
                exports, new NbdServer.Limits(128, Duration.ofSeconds(5)), OpLatencies.NONE));
    quick.writeInbound(Unpooled.buffer().writeInt(Nbd.CLIENT_FLAG_FIXED_NEWSTYLE));
    ByteBuf go = Unpooled.buffer().writeLong(Nbd.IHAVEOPT).writeInt(Nbd.OPT_GO);
    ByteBuf data = goData("disk");
    go.writeInt(data.readableBytes()).writeBytes(data);
    quick.writeInbound(go);
    assertTrue(quick.pipeline().get(NbdHandshakeHandler.class) == null, "transmission started");
    quick.advanceTimeBy(60, TimeUnit.SECONDS);
    quick.runScheduledPendingTasks();
    assertTrue(quick.isOpen(), "closed in transmission by the handshake deadline");
    quick.finishAndReleaseAll();
  }

  @Test
  void aResetDuringTheHandshakeIsOneInfoLineAndNeverReachesThePipelineTail() {
    greeted(Nbd.CLIENT_FLAG_FIXED_NEWSTYLE);
    List<LogRecord> records =
        logged(
            NbdHandshakeHandler.class.getName(),
            () ->
                ch.pipeline().fireExceptionCaught(new SocketException("Connection reset by peer")));
    ch.checkException(); // throws what reached the tail
    assertFalse(ch.isOpen());
    assertEquals(1, records.size(), "log lines");
    assertEquals(Level.INFO, records.getFirst().getLevel());
    assertNull(records.getFirst().getThrown(), "a stack trace");
    assertTrue(records.getFirst().getMessage().contains("Connection reset by peer"));

    // Before the client flags too, and anything else is one warning with its trace, still handled.
    EmbeddedChannel other =
        new EmbeddedChannel(
            new NbdHandshakeHandler(exports, NbdServer.Limits.DEFAULT, OpLatencies.NONE));
    List<LogRecord> more =
        logged(
            NbdHandshakeHandler.class.getName(),
            () -> other.pipeline().fireExceptionCaught(new IllegalStateException("bug")));
    other.checkException();
    assertFalse(other.isOpen());
    assertEquals(1, more.size());
    assertEquals(Level.WARNING, more.getFirst().getLevel());
    other.finishAndReleaseAll();
  }

  @Test
  void advertisedBlockSizesFollowTheSpecAndTheStore() {
    // doc/proto.md, "Block size constraints": min a power of 2 up to 64 KiB; preferred a power of
    // 2 at least max(min, 512); max a multiple of min and at least preferred.
    assertEquals(1, Integer.bitCount(Nbd.MIN_BLOCK));
    assertEquals(1, Integer.bitCount(Nbd.PREFERRED_BLOCK));
    assertTrue(Nbd.PREFERRED_BLOCK >= Math.max(Nbd.MIN_BLOCK, 512));
    assertEquals(0, Nbd.MAX_PAYLOAD % Nbd.MIN_BLOCK);
    assertTrue(Nbd.MAX_PAYLOAD >= Nbd.PREFERRED_BLOCK);
    assertEquals(io.tidestore.store.api.ShardStore.BLOCK_SIZE, Nbd.PREFERRED_BLOCK);
  }
}
