package io.tidestore.osd.nbd;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.tidestore.osd.image.BlockImage;
import io.tidestore.osd.image.ImageExports;
import io.tidestore.osd.metrics.OpLatencies;
import io.tidestore.osd.net.ConnectionErrors;
import io.tidestore.osd.net.InboundBudget;
import io.tidestore.osd.net.ReadGate;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The fixed newstyle handshake (NBD doc/proto.md, "Fixed newstyle negotiation"): sends the
 * greeting, reads the client flags, then answers options until NBD_OPT_GO or NBD_OPT_EXPORT_NAME
 * selects an image, and replaces itself with the transmission handlers.
 *
 * <p>Supported: EXPORT_NAME, ABORT, LIST, INFO, GO (with NBD_INFO_EXPORT, NBD_INFO_NAME on request,
 * and NBD_INFO_BLOCK_SIZE always). Any other option is answered NBD_REP_ERR_UNSUP after its data is
 * skipped. An option longer than {@link Nbd#MAX_OPTION_LENGTH} is skipped without buffering and
 * answered NBD_REP_ERR_TOO_BIG. A bad option magic or unknown client flags end the connection, as
 * the spec requires. A connection that has not started transmission {@link
 * NbdServer.Limits#handshakeTimeout} after its greeting is closed with one log line. A failure (a
 * reset, say) ends here with one line, as in transmission, never at the pipeline's tail. One
 * instance per channel, on its event loop.
 */
@SuppressWarnings("FutureReturnValueIgnored") // write failures close the channel
final class NbdHandshakeHandler extends ByteToMessageDecoder {
  private static final Logger LOG = Logger.getLogger(NbdHandshakeHandler.class.getName());

  private final ImageExports exports;
  private final NbdServer.Limits limits;
  private final OpLatencies latencies;
  private final InboundBudget frameBudget;
  private boolean gotClientFlags;
  private boolean noZeroes;
  private long discarding; // bytes of an over-long option still to skip
  private int discardingOption;
  private boolean waiting; // an option waits for the image catalog; later bytes stay buffered
  private ScheduledFuture<?> deadline; // closes the connection if the handshake takes too long

  NbdHandshakeHandler(ImageExports exports, NbdServer.Limits limits, OpLatencies latencies) {
    this(exports, limits, latencies, new InboundBudget(InboundBudget.DEFAULT_BYTES));
  }

  NbdHandshakeHandler(
      ImageExports exports,
      NbdServer.Limits limits,
      OpLatencies latencies,
      InboundBudget frameBudget) {
    this.frameBudget = frameBudget;
    this.exports = exports;
    this.limits = limits;
    this.latencies = latencies;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    deadline =
        ctx.executor()
            .schedule(
                () -> {
                  if (!ctx.isRemoved() && ctx.channel().isActive()) {
                    LOG.warning(
                        ctx.channel().remoteAddress()
                            + ": NBD handshake not done in "
                            + limits.handshakeTimeout().toMillis()
                            + " ms, closing");
                    ctx.close();
                  }
                },
                limits.handshakeTimeout().toNanos(),
                TimeUnit.NANOSECONDS);
    ByteBuf greeting = ctx.alloc().buffer(18);
    greeting.writeLong(Nbd.NBDMAGIC);
    greeting.writeLong(Nbd.IHAVEOPT);
    greeting.writeShort(Nbd.FLAG_FIXED_NEWSTYLE | Nbd.FLAG_NO_ZEROES);
    ctx.writeAndFlush(greeting);
    super.channelActive(ctx);
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (!gotClientFlags) {
      if (in.readableBytes() < 4) {
        return;
      }
      long flags = in.readUnsignedInt();
      if ((flags & ~(long) (Nbd.CLIENT_FLAG_FIXED_NEWSTYLE | Nbd.CLIENT_FLAG_NO_ZEROES)) != 0) {
        fail(ctx, in, "unknown client flags 0x" + Long.toHexString(flags));
        return;
      }
      noZeroes = (flags & Nbd.CLIENT_FLAG_NO_ZEROES) != 0;
      gotClientFlags = true;
    }
    while (ctx.channel().isActive() && !waiting) {
      if (discarding > 0) {
        int skip = (int) Math.min(discarding, in.readableBytes());
        in.skipBytes(skip);
        discarding -= skip;
        if (discarding > 0) {
          return;
        }
        optionText(ctx, discardingOption, Nbd.REP_ERR_TOO_BIG, "option data too long");
        continue;
      }
      if (in.readableBytes() < 16) {
        return;
      }
      int start = in.readerIndex();
      if (in.getLong(start) != Nbd.IHAVEOPT) {
        fail(ctx, in, "bad option magic");
        return;
      }
      int option = in.getInt(start + 8);
      long length = in.getUnsignedInt(start + 12);
      if (length > Nbd.MAX_OPTION_LENGTH) {
        in.skipBytes(16);
        LOG.warning(
            ctx.channel().remoteAddress()
                + ": NBD option "
                + option
                + " with "
                + length
                + " bytes, skipped");
        discarding = length;
        discardingOption = option;
        continue;
      }
      if (in.readableBytes() < 16 + length) {
        return;
      }
      in.skipBytes(16);
      ByteBuf data = in.readSlice((int) length);
      if (!option(ctx, option, data)) {
        return; // transmission started, or closing
      }
    }
  }

  /** Handles one option; false when the handshake is over (or waits for the catalog). */
  private boolean option(ChannelHandlerContext ctx, int option, ByteBuf data) {
    return switch (option) {
      case Nbd.OPT_EXPORT_NAME -> exportNameOption(ctx, data);
      case Nbd.OPT_ABORT -> {
        optionReply(ctx, option, Nbd.REP_ACK, null).addListener(ChannelFutureListener.CLOSE);
        yield false;
      }
      case Nbd.OPT_LIST -> list(ctx, option, data);
      case Nbd.OPT_INFO, Nbd.OPT_GO -> infoOrGo(ctx, option, data);
      default -> {
        LOG.info(ctx.channel().remoteAddress() + ": NBD option " + option + " unsupported");
        optionText(ctx, option, Nbd.REP_ERR_UNSUP, "option " + option + " not supported");
        yield true;
      }
    };
  }

  private boolean exportNameOption(ChannelHandlerContext ctx, ByteBuf data) {
    Optional<String> name = utf8(data);
    if (name.isEmpty()) {
      LOG.warning(ctx.channel().remoteAddress() + ": NBD export name is not UTF-8, closing");
      ctx.close();
      return false;
    }
    return resolve(ctx, exports.open(name.get()), image -> exportName(ctx, name.get(), image));
  }

  private boolean list(ChannelHandlerContext ctx, int option, ByteBuf data) {
    if (data.isReadable()) {
      optionText(ctx, option, Nbd.REP_ERR_INVALID, "NBD_OPT_LIST takes no data");
      return true;
    }
    return resolve(
        ctx,
        exports.names(),
        names -> {
          for (String name : names) {
            byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
            ByteBuf server = ctx.alloc().buffer(4 + bytes.length);
            server.writeInt(bytes.length).writeBytes(bytes);
            optionReply(ctx, option, Nbd.REP_SERVER, server);
          }
          optionReply(ctx, option, Nbd.REP_ACK, null);
          return true;
        });
  }

  private boolean infoOrGo(ChannelHandlerContext ctx, int option, ByteBuf data) {
    // u32 name length, name, u16 number of requests, u16 each
    if (data.readableBytes() < 6) {
      optionText(ctx, option, Nbd.REP_ERR_INVALID, "option data too short");
      return true;
    }
    long nameLength = data.readUnsignedInt();
    if (nameLength > 4096 || data.readableBytes() < nameLength + 2) {
      optionText(ctx, option, Nbd.REP_ERR_INVALID, "bad export name length");
      return true;
    }
    ByteBuf nameBytes = data.readSlice((int) nameLength);
    int requests = data.readUnsignedShort();
    if (data.readableBytes() != 2 * requests) {
      optionText(ctx, option, Nbd.REP_ERR_INVALID, "information request count mismatch");
      return true;
    }
    boolean wantName = false;
    for (int i = 0; i < requests; i++) {
      wantName |= data.readUnsignedShort() == Nbd.INFO_NAME;
    }
    Optional<String> name = utf8(nameBytes);
    if (name.isEmpty()) {
      optionText(ctx, option, Nbd.REP_ERR_INVALID, "export name is not UTF-8");
      return true;
    }
    boolean withName = wantName;
    return resolve(
        ctx, exports.open(name.get()), found -> info(ctx, option, name.get(), found, withName));
  }

  /** Replies to INFO/GO once the image is resolved; false when transmission started. */
  private boolean info(
      ChannelHandlerContext ctx,
      int option,
      String name,
      Optional<BlockImage> found,
      boolean wantName) {
    if (found.isEmpty()) {
      optionText(ctx, option, Nbd.REP_ERR_UNKNOWN, "no image '" + name + "'");
      return true;
    }
    BlockImage image = found.get();
    ByteBuf export = ctx.alloc().buffer(12);
    export.writeShort(Nbd.INFO_EXPORT).writeLong(image.size()).writeShort(transmissionFlags(image));
    optionReply(ctx, option, Nbd.REP_INFO, export);
    if (wantName) {
      byte[] bytes = image.name().getBytes(StandardCharsets.UTF_8);
      ByteBuf info = ctx.alloc().buffer(2 + bytes.length);
      info.writeShort(Nbd.INFO_NAME).writeBytes(bytes);
      optionReply(ctx, option, Nbd.REP_INFO, info);
    }
    ByteBuf sizes = ctx.alloc().buffer(14);
    sizes.writeShort(Nbd.INFO_BLOCK_SIZE);
    sizes.writeInt(Nbd.MIN_BLOCK).writeInt(Nbd.PREFERRED_BLOCK).writeInt(Nbd.MAX_PAYLOAD);
    optionReply(ctx, option, Nbd.REP_INFO, sizes);
    optionReply(ctx, option, Nbd.REP_ACK, null);
    if (option == Nbd.OPT_GO) {
      startTransmission(ctx, image);
      return false;
    }
    return true;
  }

  private boolean exportName(ChannelHandlerContext ctx, String name, Optional<BlockImage> image) {
    if (image.isEmpty()) {
      // NBD_OPT_EXPORT_NAME has no error reply: the spec says to close.
      LOG.warning(ctx.channel().remoteAddress() + ": NBD export '" + name + "' not found, closing");
      ctx.close();
      return false;
    }
    ByteBuf reply = ctx.alloc().buffer(10 + 124);
    reply.writeLong(image.get().size());
    reply.writeShort(transmissionFlags(image.get()));
    if (!noZeroes) {
      reply.writeZero(124);
    }
    ctx.writeAndFlush(reply);
    startTransmission(ctx, image.get());
    return false;
  }

  /**
   * Continues an option once {@code stage} completes: at once when it already has (returning what
   * {@code then} returns: true to keep decoding options), else later on the loop, with reading
   * stopped meanwhile and options that arrived in between decoded afterwards.
   */
  private <T> boolean resolve(
      ChannelHandlerContext ctx, CompletionStage<T> stage, Predicate<T> then) {
    CompletableFuture<T> future = stage.toCompletableFuture();
    if (future.isDone() && !future.isCompletedExceptionally()) {
      return then.test(future.join());
    }
    waiting = true;
    // Through the gate: a request decoder added meanwhile may pause reading for the frame budget.
    ReadGate gate = ReadGate.of(ctx.channel());
    gate.pause(ReadGate.HANDSHAKE);
    future.whenComplete(
        (value, failure) ->
            ctx.executor()
                .execute(
                    () -> {
                      waiting = false;
                      if (!ctx.channel().isActive()) {
                        return;
                      }
                      if (failure != null) {
                        LOG.log(
                            Level.WARNING,
                            ctx.channel().remoteAddress() + ": NBD image lookup failed, closing",
                            failure);
                        ctx.close();
                        return;
                      }
                      boolean more = then.test(value);
                      gate.resume(ReadGate.HANDSHAKE);
                      if (more) {
                        // Decode whatever arrived while we waited.
                        ctx.pipeline().fireChannelRead(Unpooled.EMPTY_BUFFER);
                      }
                    }));
    return false;
  }

  private void startTransmission(ChannelHandlerContext ctx, BlockImage image) {
    LOG.info(
        ctx.channel().remoteAddress()
            + ": NBD export '"
            + image.name()
            + "' ("
            + image.size()
            + " bytes)");
    // Bytes after the option that started transmission are requests: ByteToMessageDecoder hands
    // its cumulation to the next handler when it is removed.
    ctx.pipeline()
        .addAfter(
            ctx.name(),
            "nbd-requests",
            new NbdRequestDecoder(frameBudget, NbdRequestDecoder.STALL_TIMEOUT_NANOS))
        .addAfter("nbd-requests", "nbd-commands", new NbdCommandHandler(image, limits, latencies));
    ctx.pipeline().remove(this);
  }

  @Override
  protected void handlerRemoved0(ChannelHandlerContext ctx) {
    // Transmission started, or the channel is gone.
    if (deadline != null) {
      deadline.cancel(false);
      deadline = null;
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ConnectionErrors.closeAfter(ctx, cause, LOG, "NBD handshake failed");
  }

  static int transmissionFlags(BlockImage image) {
    // CAN_MULTI_CONN is true: every connection to an image goes to the same store objects, and a
    // write is acknowledged only once durable, so a FLUSH on any connection covers them all.
    int flags = Nbd.FLAG_HAS_FLAGS | Nbd.FLAG_SEND_FLUSH | Nbd.FLAG_CAN_MULTI_CONN;
    if (image.readOnly()) {
      return flags | Nbd.FLAG_READ_ONLY;
    }
    return flags | Nbd.FLAG_SEND_FUA | Nbd.FLAG_SEND_TRIM | Nbd.FLAG_SEND_WRITE_ZEROES;
  }

  private io.netty.channel.ChannelFuture optionText(
      ChannelHandlerContext ctx, int option, int type, String message) {
    ByteBuf data = null;
    if (message != null) {
      data = ctx.alloc().buffer(message.length());
      data.writeCharSequence(message, StandardCharsets.UTF_8);
    }
    return optionReply(ctx, option, type, data);
  }

  private io.netty.channel.ChannelFuture optionReply(
      ChannelHandlerContext ctx, int option, int type, ByteBuf data) {
    int length = data == null ? 0 : data.readableBytes();
    ByteBuf header = ctx.alloc().buffer(20);
    header.writeLong(Nbd.OPTION_REPLY_MAGIC).writeInt(option).writeInt(type).writeInt(length);
    if (data == null) {
      return ctx.writeAndFlush(header);
    }
    ctx.write(header);
    return ctx.writeAndFlush(data);
  }

  private static Optional<String> utf8(ByteBuf bytes) {
    try {
      return Optional.of(
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(bytes.nioBuffer())
              .toString());
    } catch (CharacterCodingException e) {
      return Optional.empty();
    }
  }

  private static void fail(ChannelHandlerContext ctx, ByteBuf in, String why) {
    LOG.warning(ctx.channel().remoteAddress() + ": NBD handshake: " + why + ", closing");
    in.skipBytes(in.readableBytes());
    ctx.close();
  }
}
