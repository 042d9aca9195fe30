package io.tidestore.osd.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tidestore.cluster.pg.Eversion;
import io.tidestore.cluster.pg.PgLogEntry;
import io.tidestore.cluster.pg.PgPeerInfo;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.osd.ops.Mutation;
import io.tidestore.osd.ops.RepOp;
import io.tidestore.store.testing.SeedCorpus;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes the OSD-to-OSD ops of {@link V2} as a member reads them: a REP_OP from the primary ({@link
 * RepOp}: the log entry and the mutation), a PG_QUERY, the PG_QUERY reply ({@link PgPeerInfo}) as
 * the primary reads it, and a STRAY_QUERY as the primary reads it (the asking OSD in the prefix's
 * client field, its tid 0: the harness zeroes it). The first input byte (mod 4) picks the reader.
 * The contract ({@link BodyFuzzing}): an {@link OpException}, or a value whose encoding is the
 * bytes the reader took, and a REP_OP whose entry says DELETE exactly when its mutation removes the
 * object (the replica logs the entry and applies the mutation; the primary derives one from the
 * other). Two fields are not read: a REP_OP's prefix client and tid are the entry's (the reader
 * takes them from the entry, so the harness copies them to the prefix first), and a PG_QUERY's are
 * 0 (the harness zeroes them). No other exception; allocation bounded by the input.
 */
class V2PeeringFuzzTest {
  private static final int REP_OP = 0;
  private static final int PG_QUERY = 1;
  private static final int PEER_INFO = 2;
  private static final int STRAY_QUERY = 3;

  /** Where a REP_OP's entry holds its client and tid: after the prefix, seed, entry length. */
  private static final int ENTRY_CLIENT = V2.PREFIX + 4 + 2 + 2 + 2 * Eversion.BYTES;

  private static final BodyFuzzing.Codec<RepOp> REP_OP_CODEC =
      new BodyFuzzing.Codec<>(
          V2::readRepOp,
          (out, op) -> {
            V2.writeRepOp(out, op);
            ByteBuf payload = V2.payload(op.mutation());
            if (payload != null) {
              out.writeBytes(payload, payload.readerIndex(), payload.readableBytes());
            }
          });

  /** A PG_QUERY as read: the asker's epoch and the PG. */
  private record Query(long epoch, PgId pg) {}

  private static final BodyFuzzing.Codec<Query> QUERY_CODEC =
      new BodyFuzzing.Codec<>(
          in -> {
            long[] epoch = new long[1];
            PgId pg = V2.readPgQuery(in, epoch);
            return new Query(epoch[0], pg);
          },
          (out, q) -> V2.writePgQuery(out, q.epoch(), q.pg()));

  /** A STRAY_QUERY as read: the asker's epoch, the PG and the asking OSD. */
  private record StrayQuery(long epoch, PgId pg, int osd) {}

  private static final BodyFuzzing.Codec<StrayQuery> STRAY_CODEC =
      new BodyFuzzing.Codec<>(
          in -> {
            long[] fields = new long[2];
            PgId pg = V2.readStrayQuery(in, fields);
            return new StrayQuery(fields[0], pg, (int) fields[1]);
          },
          (out, q) -> V2.writeStrayQuery(out, q.epoch(), q.pg(), q.osd()));

  @FuzzTest
  void read(byte[] input) {
    BodyFuzzing.bounded("v2 peering bodies", input, V2PeeringFuzzTest::exercise);
  }

  private static void exercise(byte[] input) {
    switch (Byte.toUnsignedInt(input[0]) % 4) {
      case REP_OP -> {
        byte[] body = input.clone();
        if (body.length >= 1 + ENTRY_CLIENT + 16) {
          System.arraycopy(body, 1 + ENTRY_CLIENT, body, 1 + 8, 16);
        }
        BodyFuzzing.roundTrip(
            body,
            1,
            REP_OP_CODEC,
            true,
            V2PeeringFuzzTest::checkRepOp,
            op -> op.mutation().release());
      }
      case PG_QUERY -> {
        BodyFuzzing.roundTrip(
            BodyFuzzing.zeroClientAndTid(input), 1, QUERY_CODEC, true, q -> {}, q -> {});
      }
      case STRAY_QUERY -> {
        // The tid is not read: zeroed as a writer sends it.
        byte[] body = input.clone();
        if (body.length >= 1 + V2.PREFIX) {
          Arrays.fill(body, 1 + 16, 1 + V2.PREFIX, (byte) 0);
        }
        BodyFuzzing.roundTrip(body, 1, STRAY_CODEC, true, q -> {}, q -> {});
      }
      default ->
          BodyFuzzing.roundTrip(
              input,
              1,
              new BodyFuzzing.Codec<>(V2::readPeerInfo, V2::writePeerInfo),
              false,
              info -> {},
              info -> {});
    }
  }

  private static void checkRepOp(RepOp op) {
    assertEquals(
        op.mutation().deletes(),
        op.entry().op() == PgLogEntry.Op.DELETE,
        "entry " + op.entry() + " for " + op.mutation());
  }

  /** The checked-in seeds are the codec's encodings of these values. */
  @Test
  void seedsAreTheCodecsEncodings() {
    SeedCorpus.check(V2PeeringFuzzTest.class, "read", seeds());
  }

  static Map<String, byte[]> seeds() {
    PgId pg = new PgId(2, 0x1f);
    Map<String, byte[]> seeds = new LinkedHashMap<>();
    seeds.put(
        "rep-op-write",
        repOp(
            new RepOp(
                9,
                pg,
                modify("obj", 3),
                new Mutation.Write(4096, Unpooled.copiedBuffer("data", StandardCharsets.UTF_8)))));
    seeds.put(
        "rep-op-truncate", repOp(new RepOp(9, pg, modify("obj", 4), new Mutation.Truncate(1))));
    seeds.put(
        "rep-op-remove",
        repOp(
            new RepOp(
                9,
                pg,
                new PgLogEntry(
                    PgLogEntry.Op.DELETE, "obj", new Eversion(9, 5), new Eversion(9, 4), 7, 5),
                new Mutation.Remove())));
    seeds.put(
        "rep-op-setxattr",
        repOp(
            new RepOp(
                9,
                pg,
                modify("obj\u00e9", 6),
                new Mutation.SetXattr("user.k", Unpooled.wrappedBuffer(new byte[] {1, 2, 3})))));
    seeds.put(
        "rep-op-rmxattr",
        repOp(new RepOp(9, pg, modify("obj", 7), new Mutation.RemoveXattr("user.k"))));
    seeds.put("pg-query", BodyFuzzing.seed(PG_QUERY, out -> V2.writePgQuery(out, 9, pg)));
    seeds.put(
        "stray-query", BodyFuzzing.seed(STRAY_QUERY, out -> V2.writeStrayQuery(out, 9, pg, 4)));
    seeds.put(
        "peer-info",
        BodyFuzzing.seed(
            PEER_INFO,
            out ->
                V2.writePeerInfo(out, new PgPeerInfo(new Eversion(9, 7), new Eversion(3, 1), 8))));
    return seeds;
  }

  private static PgLogEntry modify(String name, long version) {
    return new PgLogEntry(
        PgLogEntry.Op.MODIFY, name, new Eversion(9, version), Eversion.ZERO, 7, version);
  }

  /** A REP_OP's encoding as a seed; its mutation is released. */
  private static byte[] repOp(RepOp op) {
    try {
      return BodyFuzzing.seed(REP_OP, out -> REP_OP_CODEC.writer().write(out, op));
    } finally {
      op.mutation().release();
    }
  }
}
