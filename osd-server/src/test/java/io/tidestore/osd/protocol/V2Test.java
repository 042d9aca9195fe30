package io.tidestore.osd.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.tidestore.cluster.pg.Eversion;
import io.tidestore.cluster.pg.PgLogEntry;
import io.tidestore.cluster.pg.PgPeerInfo;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.osd.ops.ClientRequest;
import io.tidestore.osd.ops.LogCopy;
import io.tidestore.osd.ops.LogSync;
import io.tidestore.osd.ops.Mutation;
import io.tidestore.osd.ops.NamePage;
import io.tidestore.osd.ops.ObjectChunk;
import io.tidestore.osd.ops.RepOp;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Protocol v2's bodies: what is written reads back; what is malformed is refused with a status. */
class V2Test {
  private static final PgId PG = new PgId(3, 0x2f);

  private static PgLogEntry entry(String name) {
    return entry(name, PgLogEntry.Op.MODIFY);
  }

  private static PgLogEntry entry(String name, PgLogEntry.Op op) {
    return new PgLogEntry(op, name, new Eversion(7, 12), new Eversion(5, 3), 0xabcdefL, 99);
  }

  /** The entry a primary logs for {@code m}: a DELETE exactly when it removes the object. */
  private static PgLogEntry entryFor(Mutation m) {
    return entry("obj", m.deletes() ? PgLogEntry.Op.DELETE : PgLogEntry.Op.MODIFY);
  }

  /** A REP_OP frame body as a link writes it: fields, then the payload. */
  private static ByteBuf repOp(RepOp op) {
    ByteBuf out = Unpooled.buffer();
    V2.writeRepOp(out, op);
    ByteBuf payload = V2.payload(op.mutation());
    if (payload != null) {
      out.writeBytes(payload, payload.readerIndex(), payload.readableBytes());
    }
    return out;
  }

  @Test
  void everyMutationRoundTripsInARepOp() {
    byte[] data = {1, 2, 3, 4, 5};
    List<Mutation> all =
        List.of(
            new Mutation.Write(4096, Unpooled.wrappedBuffer(data)),
            new Mutation.Truncate(12345),
            new Mutation.Remove(),
            new Mutation.Punch(8192, 4096),
            new Mutation.SetXattr("k", Unpooled.wrappedBuffer(data)),
            new Mutation.RemoveXattr("k"));
    for (Mutation m : all) {
      RepOp sent = new RepOp(7, PG, entryFor(m), m);
      RepOp got = V2.readRepOp(repOp(sent));
      assertEquals(sent.epoch(), got.epoch());
      assertEquals(PG, got.pg());
      assertEquals(sent.entry(), got.entry());
      assertEquals(V2.opOf(m), V2.opOf(got.mutation()), m.toString());
      switch (got.mutation()) {
        case Mutation.Write w -> {
          assertEquals(4096, w.offset());
          assertArrayEquals(data, ByteBufUtil.getBytes(w.data()));
        }
        case Mutation.Truncate t -> assertEquals(12345, t.size());
        case Mutation.SetXattr x -> {
          assertEquals("k", x.key());
          assertArrayEquals(data, ByteBufUtil.getBytes(x.value()));
        }
        case Mutation.RemoveXattr x -> assertEquals("k", x.key());
        case Mutation.Remove _ -> {}
        case Mutation.Punch p -> assertEquals(new Mutation.Punch(8192, 4096), p);
      }
      got.mutation().release();
    }
  }

  @Test
  void aRepOpWhoseEntryNamesAnotherObjectOrIsCutIsRefused() {
    ByteBuf body = repOp(new RepOp(7, PG, entry("obj"), new Mutation.Truncate(1)));
    byte[] bytes = ByteBufUtil.getBytes(body);
    // The object name after the entry: "obj" -> "obk".
    for (int i = bytes.length - 1; i > 0; i--) {
      if (bytes[i] == 'j' && bytes[i - 1] == 'b') {
        bytes[i] = 'k';
        break;
      }
    }
    OpException e =
        assertThrows(OpException.class, () -> V2.readRepOp(Unpooled.wrappedBuffer(bytes)));
    assertEquals(Status.EBADMSG, e.status(), e.getMessage());
    byte[] whole =
        ByteBufUtil.getBytes(
            repOp(new RepOp(7, PG, entry("obj", PgLogEntry.Op.DELETE), new Mutation.Remove())));
    for (int cut = 0; cut < whole.length; cut++) {
      ByteBuf part = Unpooled.wrappedBuffer(whole, 0, cut);
      OpException x = assertThrows(OpException.class, () -> V2.readRepOp(part), "cut at " + cut);
      assertTrue(
          x.status() == Status.EBADMSG || x.status() == Status.EINVAL,
          "cut at " + cut + ": " + x.getMessage());
    }
  }

  @Test
  void aRepOpWhoseEntryContradictsItsMutationIsRefused() {
    Mutation remove = new Mutation.Remove();
    Mutation truncate = new Mutation.Truncate(1);
    for (RepOp sent :
        List.of(
            new RepOp(7, PG, entry("obj", PgLogEntry.Op.MODIFY), remove),
            new RepOp(7, PG, entry("obj", PgLogEntry.Op.DELETE), truncate))) {
      OpException e = assertThrows(OpException.class, () -> V2.readRepOp(repOp(sent)));
      assertEquals(Status.EBADMSG, e.status(), e.getMessage());
    }
  }

  @Test
  void clientRequestsPgQueriesAndPeerInfosRoundTrip() {
    ByteBuf out = Unpooled.buffer();
    V2.writePrefix(out, 0xfffffffeL, 3, -5, 77);
    Wire.writeString(out, "name");
    ClientRequest r = V2.readClientRequest(out);
    assertEquals(new ClientRequest(0xfffffffeL, 3, "name", -5, 77), r);

    ByteBuf q = Unpooled.buffer();
    V2.writePgQuery(q, 9, PG);
    long[] epoch = new long[1];
    assertEquals(PG, V2.readPgQuery(q, epoch));
    assertEquals(9, epoch[0]);

    PgPeerInfo info = new PgPeerInfo(new Eversion(4, 10), new Eversion(2, 1), 3);
    ByteBuf i = Unpooled.buffer();
    V2.writePeerInfo(i, info);
    assertEquals(info, V2.readPeerInfo(i));
  }

  @Test
  void anUnknownMutationOpIsRefused() {
    OpException e =
        assertThrows(OpException.class, () -> V2.readMutation(Op.READ, Unpooled.buffer()));
    assertEquals(Status.EOPNOTSUPP, e.status());
  }

  @Test
  void recoveryBodiesRoundTrip() {
    ByteBuf h = Unpooled.buffer();
    V2Recovery.writeHeader(h, 12, PG);
    long[] epoch = new long[1];
    assertEquals(PG, V2Recovery.readHeader(h, epoch));
    assertEquals(12, epoch[0]);

    java.util.TreeMap<String, byte[]> xattrs = new java.util.TreeMap<>();
    xattrs.put("_v", new byte[] {1, 2});
    xattrs.put("owner", new byte[0]);
    ObjectChunk chunk =
        new ObjectChunk(
            "obj",
            false,
            true,
            true,
            8192,
            9000,
            xattrs,
            Unpooled.wrappedBuffer(new byte[] {7, 8}));
    ByteBuf c = Unpooled.buffer();
    V2Recovery.writeChunkFields(c, chunk);
    c.writeBytes(chunk.data(), 0, 2);
    ObjectChunk back = V2Recovery.readChunk(c);
    assertEquals(chunk.name(), back.name());
    assertEquals(List.of(false, true, true), List.of(back.missing(), back.first(), back.last()));
    assertEquals(8192, back.offset());
    assertEquals(9000, back.size());
    assertEquals(xattrs.keySet(), back.xattrs().keySet());
    assertArrayEquals(new byte[] {1, 2}, back.xattrs().get("_v"));
    assertArrayEquals(new byte[] {7, 8}, ByteBufUtil.getBytes(back.data()));
    back.release();

    LogSync sync =
        new LogSync(
            new Eversion(3, 9), List.of(new Eversion(2, 10)), List.of(entry("a"), entry("b")));
    ByteBuf s = Unpooled.buffer();
    V2Recovery.writeLogSync(s, sync);
    assertEquals(sync, V2Recovery.readLogSync(s));

    LogCopy log = new LogCopy(new Eversion(1, 1), List.of(entry("x")));
    ByteBuf l = Unpooled.buffer();
    V2Recovery.writeLog(l, log);
    assertEquals(log, V2Recovery.readLog(l));

    NamePage page = new NamePage(List.of("a", "b"), true);
    ByteBuf p = Unpooled.buffer();
    V2Recovery.writeNamePage(p, page);
    assertEquals(page, V2Recovery.readNamePage(p));
  }
}
