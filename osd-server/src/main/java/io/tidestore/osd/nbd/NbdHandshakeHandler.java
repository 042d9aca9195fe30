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
import io.tidestore.osd.security.ServerSecurity;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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
 * and NBD_INFO_BLOCK_SIZE always), STARTTLS ({@link NbdTls}), STRUCTURED_REPLY, LIST_META_CONTEXT
 * and SET_META_CONTEXT ({@code base:allocation}, {@link NbdMetaContexts}). Any other option is
 * answered NBD_REP_ERR_UNSUP after its data is skipped. What the client may see follows its caps:
 * LIST names only images it may read, INFO and GO of any other get NBD_REP_ERR_POLICY, and an image
 * it may read but not write is exported read-only. An option longer than {@link
 * Nbd#MAX_OPTION_LENGTH} is skipped without buffering and answered NBD_REP_ERR_TOO_BIG. A bad
 * option magic or unknown client flags end the connection, as the spec requires. A connection that
 * has not started transmission {@link NbdServer.Limits#handshakeTimeout} after its greeting is
 * closed with one log line. A failure (a reset, say) ends here with one line, as in transmission,
 * never at the pipeline's tail. One instance per channel, on its event loop.
 */
@SuppressWarnings("FutureReturnValueIgnored") // write failures close the channel
final class NbdHandshakeHandler extends ByteToMessageDecoder {
  private static final Logger LOG = Logger.getLogger(NbdHandshakeHandler.class.getName());

  private final ImageExports exports;
  private final NbdServer.Limits limits;
  private final OpLatencies latencies;
  private final InboundBudget frameBudget;
  private final NbdTls tls;
  private boolean structuredReplies;
  private String metaExport; // the export base:allocation was selected for, else null
  private boolean gotClientFlags;
  private boolean noZeroes;
  private long discarding; // bytes of an over-long option still to skip
  private int discardingOption;
  private boolean waiting; // an option waits for the image catalog; later bytes stay buffered
  private ScheduledFuture<?> deadline; // closes the connection if the handshake takes too long

  NbdHandshakeHandler(ImageExports exports, NbdServer.Limits limits, OpLatencies latencies) {
    this(
        exports,
        limits,
        latencies,
        new InboundBudget(InboundBudget.DEFAULT_BYTES),
        ServerSecurity.plaintext(),
        NbdServer.POOL);
  }

  NbdHandshakeHandler(
      ImageExports exports,
      NbdServer.Limits limits,
      OpLatencies latencies,
      InboundBudget frameBudget,
      ServerSecurity security,
      String pool) {
    this.frameBudget = frameBudget;
    this.tls = new NbdTls(security, pool);
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
        NbdOptionReplies.text(ctx, discardingOption, Nbd.REP_ERR_TOO_BIG, "option data too long");
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
      if (tls.required(option)) {
        if (option == Nbd.OPT_EXPORT_NAME) {
          // No error reply exists for EXPORT_NAME: the spec says to close.
          fail(ctx, in, "NBD_OPT_EXPORT_NAME without TLS under --tls require");
          return;
        }
        NbdOptionReplies.text(
            ctx, option, Nbd.REP_ERR_TLS_REQD, "TLS is required: send NBD_OPT_STARTTLS");
        continue;
      }
      if (option == Nbd.OPT_STARTTLS) {
        NbdTls.Outcome outcome = tls.startTls(ctx, data, in);
        if (outcome == NbdTls.Outcome.CLOSED) {
          return;
        }
        if (outcome == NbdTls.Outcome.STARTED) {
          structuredReplies = false; // option haggling starts over inside TLS
          metaExport = null;
        }
        continue;
      }
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
        NbdOptionReplies.reply(ctx, option, Nbd.REP_ACK, null)
            .addListener(ChannelFutureListener.CLOSE);
        yield false;
      }
      case Nbd.OPT_LIST -> list(ctx, option, data);
      case Nbd.OPT_INFO, Nbd.OPT_GO -> infoOrGo(ctx, option, data);
      case Nbd.OPT_STRUCTURED_REPLY -> {
        if (data.isReadable()) {
          NbdOptionReplies.text(
              ctx, option, Nbd.REP_ERR_INVALID, "NBD_OPT_STRUCTURED_REPLY takes no data");
        } else {
          structuredReplies = true;
          NbdOptionReplies.reply(ctx, option, Nbd.REP_ACK, null);
        }
        yield true;
      }
      case Nbd.OPT_LIST_META_CONTEXT, Nbd.OPT_SET_META_CONTEXT -> metaContext(ctx, option, data);
      default -> {
        LOG.info(ctx.channel().remoteAddress() + ": NBD option " + option + " unsupported");
        NbdOptionReplies.text(
            ctx, option, Nbd.REP_ERR_UNSUP, "option " + option + " not supported");
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
    String image = exports.canonicalName(name.get());
    if (!tls.canRead(ctx, image)) {
      // NBD_OPT_EXPORT_NAME has no error reply: the spec says to close.
      LOG.warning(
          ctx.channel().remoteAddress()
              + ": "
              + tls.who(ctx)
              + " may not read image '"
              + image
              + "', closing");
      ctx.close();
      return false;
    }
    return resolve(ctx, exports.open(name.get()), found -> exportName(ctx, name.get(), found));
  }

  /** LIST_META_CONTEXT and SET_META_CONTEXT, with structured replies negotiated first. */
  private boolean metaContext(ChannelHandlerContext ctx, int option, ByteBuf data) {
    if (!structuredReplies) {
      NbdOptionReplies.text(
          ctx, option, Nbd.REP_ERR_INVALID, "negotiate NBD_OPT_STRUCTURED_REPLY first");
      return true;
    }
    NbdMetaContexts request = NbdMetaContexts.parse(data);
    if (request == null) {
      NbdOptionReplies.text(ctx, option, Nbd.REP_ERR_INVALID, "malformed meta context request");
      return true;
    }
    if (option == Nbd.OPT_LIST_META_CONTEXT) {
      if (request.listsBaseAllocation()) {
        NbdOptionReplies.metaContext(ctx, option, 0, Nbd.BASE_ALLOCATION);
      }
    } else {
      metaExport = null;
      if (request.selectsBaseAllocation()) {
        metaExport = exports.canonicalName(request.export());
        NbdOptionReplies.metaContext(ctx, option, Nbd.BASE_ALLOCATION_ID, Nbd.BASE_ALLOCATION);
      }
    }
    NbdOptionReplies.reply(ctx, option, Nbd.REP_ACK, null);
    return true;
  }

  private boolean list(ChannelHandlerContext ctx, int option, ByteBuf data) {
    if (data.isReadable()) {
      NbdOptionReplies.text(ctx, option, Nbd.REP_ERR_INVALID, "NBD_OPT_LIST takes no data");
      return true;
    }
    return resolve(
        ctx,
        exports.names(),
        all -> {
          List<String> names = new ArrayList<>();
          for (String name : all) {
            if (tls.canRead(ctx, name)) {
              names.add(name);
            }
          }
          for (String name : names) {
            byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
            ByteBuf server = ctx.alloc().buffer(4 + bytes.length);
            server.writeInt(bytes.length).writeBytes(bytes);
            NbdOptionReplies.reply(ctx, option, Nbd.REP_SERVER, server);
          }
          NbdOptionReplies.reply(ctx, option, Nbd.REP_ACK, null);
          return true;
        });
  }

  private boolean infoOrGo(ChannelHandlerContext ctx, int option, ByteBuf data) {
    // u32 name length, name, u16 number of requests, u16 each
    if (data.readableBytes() < 6) {
      NbdOptionReplies.text(ctx, option, Nbd.REP_ERR_INVALID, "option data too short");
      return true;
    }
    long nameLength = data.readUnsignedInt();
    if (nameLength > 4096 || data.readableBytes() < nameLength + 2) {
      NbdOptionReplies.text(ctx, option, Nbd.REP_ERR_INVALID, "bad export name length");
      return true;
    }
    ByteBuf nameBytes = data.readSlice((int) nameLength);
    int requests = data.readUnsignedShort();
    if (data.readableBytes() != 2 * requests) {
      NbdOptionReplies.text(ctx, option, Nbd.REP_ERR_INVALID, "information request count mismatch");
      return true;
    }
    boolean wantName = false;
    for (int i = 0; i < requests; i++) {
      wantName |= data.readUnsignedShort() == Nbd.INFO_NAME;
    }
    Optional<String> name = utf8(nameBytes);
    if (name.isEmpty()) {
      NbdOptionReplies.text(ctx, option, Nbd.REP_ERR_INVALID, "export name is not UTF-8");
      return true;
    }
    boolean withName = wantName;
    String image = exports.canonicalName(name.get());
    if (!tls.canRead(ctx, image)) {
      LOG.info(
          ctx.channel().remoteAddress() + ": " + tls.who(ctx) + " refused image '" + image + "'");
      NbdOptionReplies.text(
          ctx, option, Nbd.REP_ERR_POLICY, tls.who(ctx) + " may not read image '" + image + "'");
      return true;
    }
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
      NbdOptionReplies.text(ctx, option, Nbd.REP_ERR_UNKNOWN, "no image '" + name + "'");
      return true;
    }
    BlockImage image = found.get();
    NbdOptionReplies.info(
        ctx,
        option,
        image,
        Nbd.transmissionFlags(readOnly(ctx, image), structuredReplies),
        wantName);
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
    reply.writeShort(Nbd.transmissionFlags(readOnly(ctx, image.get()), structuredReplies));
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

  /** Whether the connection may not write {@code image}: a read-only image, or no write cap. */
  private boolean readOnly(ChannelHandlerContext ctx, BlockImage image) {
    return image.readOnly() || !tls.canWrite(ctx, image.name());
  }

  private void startTransmission(ChannelHandlerContext ctx, BlockImage image) {
    boolean readOnly = readOnly(ctx, image);
    NbdCommandHandler.Session session =
        new NbdCommandHandler.Session(readOnly, structuredReplies, image.name().equals(metaExport));
    LOG.info(
        ctx.channel().remoteAddress()
            + ": NBD export '"
            + image.name()
            + "' ("
            + image.size()
            + " bytes"
            + (readOnly ? ", read-only" : "")
            + (tls.active() ? ", TLS, " + tls.who(ctx) : "")
            + (structuredReplies ? ", structured replies" : "")
            + (session.baseAllocation() ? ", base:allocation" : "")
            + ")");
    // Bytes after the option that started transmission are requests: ByteToMessageDecoder hands
    // its cumulation to the next handler when it is removed.
    ctx.pipeline()
        .addAfter(
            ctx.name(),
            "nbd-requests",
            new NbdRequestDecoder(frameBudget, NbdRequestDecoder.STALL_TIMEOUT_NANOS))
        .addAfter(
            "nbd-requests",
            "nbd-commands",
            new NbdCommandHandler(image, session, limits, latencies));
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
    // A failed TLS handshake after STARTTLS never gets here: the TLS handler's watch reports it.
    ConnectionErrors.closeAfter(ctx, cause, LOG, "NBD handshake failed");
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
