package io.tidestore.osd.protocol;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tidestore.cluster.pg.Eversion;
import io.tidestore.cluster.pg.PgLogEntry;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.osd.ops.LogCopy;
import io.tidestore.osd.ops.LogSync;
import io.tidestore.osd.ops.NamePage;
import io.tidestore.osd.ops.ObjectChunk;
import io.tidestore.store.testing.SeedCorpus;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes recovery's v2 bodies as an OSD reads them from a peer ({@link V2Recovery}): the op header
 * every recovery request starts with, a GET_LOG reply ({@link LogCopy}), a LOG_SYNC request, a PUSH
 * request or PULL reply ({@link ObjectChunk}) and a LIST_PG reply ({@link NamePage}). The first
 * input byte (mod 5) picks the reader. The contract ({@link BodyFuzzing}): an {@link OpException},
 * or a value whose encoding is the bytes the reader took (LOG_SYNC and a chunk take the whole body;
 * the others leave what follows them to the caller). The header reader ignores the request's client
 * and tid (recovery sends 0), so the harness zeroes them first: the rest is canonical. No other
 * exception; allocation bounded by the input, never by a count.
 */
class V2RecoveryFuzzTest {
  private static final int HEADER = 0;
  private static final int LOG = 1;
  private static final int LOG_SYNC = 2;
  private static final int CHUNK = 3;
  private static final int NAME_PAGE = 4;

  /** An op header as read: the asker's epoch and the PG. */
  private record Header(long epoch, PgId pg) {}

  private static final BodyFuzzing.Codec<Header> HEADER_CODEC =
      new BodyFuzzing.Codec<>(
          in -> {
            long[] epoch = new long[1];
            PgId pg = V2Recovery.readHeader(in, epoch);
            return new Header(epoch[0], pg);
          },
          (out, h) -> V2Recovery.writeHeader(out, h.epoch(), h.pg()));

  private static final BodyFuzzing.Codec<ObjectChunk> CHUNK_CODEC =
      new BodyFuzzing.Codec<>(
          V2Recovery::readChunk,
          (out, c) -> {
            V2Recovery.writeChunkFields(out, c);
            out.writeBytes(c.data(), c.data().readerIndex(), c.data().readableBytes());
          });

  @FuzzTest
  void read(byte[] input) {
    BodyFuzzing.bounded("v2 recovery bodies", input, V2RecoveryFuzzTest::exercise);
  }

  private static void exercise(byte[] input) {
    switch (Byte.toUnsignedInt(input[0]) % 5) {
      case HEADER -> {
        BodyFuzzing.roundTrip(
            BodyFuzzing.zeroClientAndTid(input), 1, HEADER_CODEC, false, h -> {}, h -> {});
      }
      case LOG ->
          BodyFuzzing.roundTrip(
              input,
              1,
              new BodyFuzzing.Codec<>(V2Recovery::readLog, V2Recovery::writeLog),
              false,
              log -> {},
              log -> {});
      case LOG_SYNC ->
          BodyFuzzing.roundTrip(
              input,
              1,
              new BodyFuzzing.Codec<>(V2Recovery::readLogSync, V2Recovery::writeLogSync),
              true,
              sync -> {},
              sync -> {});
      case CHUNK ->
          BodyFuzzing.roundTrip(
              input, 1, CHUNK_CODEC, true, V2RecoveryFuzzTest::checkChunk, ObjectChunk::release);
      default ->
          BodyFuzzing.roundTrip(
              input,
              1,
              new BodyFuzzing.Codec<>(V2Recovery::readNamePage, V2Recovery::writeNamePage),
              false,
              page -> {},
              page -> {});
    }
  }

  /** What the receiver relies on: a name and keys a store object can have, a whole range. */
  private static void checkChunk(ObjectChunk c) {
    assertTrue(!c.name().isEmpty(), "an empty name");
    assertTrue(c.offset() >= 0 && c.size() >= 0, "offset " + c.offset() + " size " + c.size());
    assertTrue(
        c.offset() <= Long.MAX_VALUE - c.data().readableBytes(), "data past 2^63: " + c.offset());
    for (String key : c.xattrs().keySet()) {
      assertTrue(!key.isEmpty(), "an empty xattr key");
    }
  }

  /** The checked-in seeds are the codec's encodings of these values. */
  @Test
  void seedsAreTheCodecsEncodings() {
    SeedCorpus.check(V2RecoveryFuzzTest.class, "read", seeds());
  }

  static Map<String, byte[]> seeds() {
    PgLogEntry first =
        new PgLogEntry(PgLogEntry.Op.MODIFY, "a", new Eversion(4, 1), Eversion.ZERO, 9, 1);
    PgLogEntry second =
        new PgLogEntry(
            PgLogEntry.Op.DELETE, "rbd_data.\u00e9", new Eversion(5, 2), new Eversion(4, 1), 9, 2);
    Map<String, byte[]> seeds = new LinkedHashMap<>();
    seeds.put(
        "header",
        BodyFuzzing.seed(HEADER, out -> V2Recovery.writeHeader(out, 7, new PgId(3, 0x2f))));
    seeds.put(
        "log",
        BodyFuzzing.seed(
            LOG,
            out ->
                V2Recovery.writeLog(out, new LogCopy(new Eversion(3, 9), List.of(first, second)))));
    seeds.put(
        "log-empty",
        BodyFuzzing.seed(
            LOG, out -> V2Recovery.writeLog(out, new LogCopy(Eversion.ZERO, List.of()))));
    seeds.put(
        "log-sync",
        BodyFuzzing.seed(
            LOG_SYNC,
            out ->
                V2Recovery.writeLogSync(
                    out,
                    new LogSync(
                        new Eversion(3, 9),
                        List.of(new Eversion(4, 1), new Eversion(4, 2)),
                        List.of(first, second)))));
    seeds.put(
        "chunk-missing",
        chunkSeed(new ObjectChunk("gone", true, true, true, 0, 0, new TreeMap<>(), data(""))));
    seeds.put(
        "chunk-first",
        chunkSeed(
            new ObjectChunk(
                "obj", false, true, false, 0, 10, new TreeMap<>(), data("0123456789"))));
    seeds.put(
        "chunk-last-xattrs",
        chunkSeed(
            new ObjectChunk(
                "obj",
                false,
                false,
                true,
                4096,
                4100,
                new TreeMap<>(
                    Map.of("_v", new byte[12], "user.a", new byte[] {1, 2}, "user.b", new byte[0])),
                data("tail"))));
    seeds.put(
        "name-page",
        BodyFuzzing.seed(
            NAME_PAGE,
            out ->
                V2Recovery.writeNamePage(out, new NamePage(List.of("a", "b\u00e9", "c"), true))));
    seeds.put(
        "name-page-last",
        BodyFuzzing.seed(
            NAME_PAGE, out -> V2Recovery.writeNamePage(out, new NamePage(List.of(), false))));
    return seeds;
  }

  /** A chunk's encoding as a seed; the chunk is released. */
  private static byte[] chunkSeed(ObjectChunk c) {
    try {
      return BodyFuzzing.seed(CHUNK, out -> CHUNK_CODEC.writer().write(out, c));
    } finally {
      c.release();
    }
  }

  private static ByteBuf data(String text) {
    return Unpooled.copiedBuffer(text, StandardCharsets.UTF_8);
  }
}
