package io.tidestore.osd.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tidestore.cluster.pg.Eversion;
import io.tidestore.osd.ops.ObjectDigest;
import io.tidestore.osd.ops.ScrubReport;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Deep scrub's v2 bodies: BLOCK_CRCS and DEEP_SCRUB replies read back; malformed ones refused. */
class V2ScrubTest {
  @Test
  void aDigestRoundTripsWithItsUnreadableBlocks() {
    ObjectDigest d =
        new ObjectDigest(
            true,
            3 * 4096 + 10,
            new Eversion(4, 17),
            0x1234,
            new int[] {1, -2, 0, 5},
            new int[] {2});
    ByteBuf out = Unpooled.buffer();
    V2Scrub.writeDigest(out, d);
    assertEquals(V2Scrub.digestBytes(d), out.readableBytes());
    ObjectDigest back = V2Scrub.readDigest(out);
    assertEquals(1, back.unreadableCount());
    assertEquals(d.size(), back.size());
    assertEquals(d.version(), back.version());
    assertEquals(d.attrsCrc(), back.attrsCrc());
    assertEquals(4, back.blocks());
    assertEquals(-2, back.crc(1));
    assertFalse(back.readable(2));
    assertTrue(back.readable(1));

    ByteBuf missing = Unpooled.buffer();
    V2Scrub.writeDigest(missing, ObjectDigest.missing());
    ObjectDigest none = V2Scrub.readDigest(missing);
    assertFalse(none.exists());
    assertNull(none.version());
  }

  @Test
  void aDigestWhoseCrcsDoNotFitItsSizeOrAreCutIsRefused() {
    ByteBuf out = Unpooled.buffer();
    V2Scrub.writeDigest(
        out, new ObjectDigest(true, 4096, Eversion.ZERO, 0, new int[] {9}, new int[0]));
    out.setLong(1, 3 * 4096); // three blocks' size, one crc
    assertEquals(
        Status.EBADMSG, assertThrows(OpException.class, () -> V2Scrub.readDigest(out)).status());

    ByteBuf cut = Unpooled.buffer();
    V2Scrub.writeDigest(
        cut, new ObjectDigest(true, 8192, Eversion.ZERO, 0, new int[] {1, 2}, new int[0]));
    cut.writerIndex(cut.writerIndex() - 6);
    assertEquals(
        Status.EBADMSG, assertThrows(OpException.class, () -> V2Scrub.readDigest(cut)).status());
  }

  @Test
  void aReportRoundTrips() {
    ScrubReport r =
        new ScrubReport(
            "1.2f",
            3,
            40,
            160,
            2,
            1,
            1,
            75,
            List.of(
                new ScrubReport.Finding("a", 2, "1 block unreadable", 1, List.of(7), true),
                new ScrubReport.Finding("b", -1, "no authoritative copy", 2, List.of(0, 1), false)),
            List.of("c: versions differ: osd.3 1'4, osd.2 1'3"));
    ByteBuf out = Unpooled.buffer();
    V2Scrub.writeReport(out, r);
    assertEquals(r, V2Scrub.readReport(out));
    assertEquals(1, r.unrepaired());
  }
}
