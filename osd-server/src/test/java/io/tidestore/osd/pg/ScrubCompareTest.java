package io.tidestore.osd.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.cluster.pg.Eversion;
import io.tidestore.osd.ops.ObjectDigest;
import io.tidestore.osd.ops.ScrubReport.Finding;
import io.tidestore.osd.pg.ScrubCompare.Kind;
import io.tidestore.osd.pg.ScrubCompare.Verdict;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Deep scrub's decision for one object, over crc lists: authority, bad copies, skips. */
class ScrubCompareTest {
  private static final Eversion V = new Eversion(5, 12);
  private static final int PRIMARY = 4;

  /** A copy of 4 blocks, version {@link #V}, with {@code crcs} and those unreadable blocks. */
  private static ObjectDigest copy(int[] crcs, int... unreadable) {
    return new ObjectDigest(true, 4L * 4096, V, 77, crcs, unreadable);
  }

  private static final int[] GOOD = {10, 11, 12, 13};

  /** Members in acting order: the primary (osd.4), then osd.1 and osd.7. */
  private static Map<Integer, ObjectDigest> copies(
      ObjectDigest primary, ObjectDigest one, ObjectDigest seven) {
    Map<Integer, ObjectDigest> m = new LinkedHashMap<>();
    m.put(PRIMARY, primary);
    m.put(1, one);
    m.put(7, seven);
    return m;
  }

  private static Verdict decide(Map<Integer, ObjectDigest> copies) {
    return ScrubCompare.decide("obj", PRIMARY, copies, V);
  }

  @Test
  void identicalCopiesAreConsistent() {
    Verdict v = decide(copies(copy(GOOD), copy(GOOD), copy(GOOD)));
    assertEquals(Kind.CONSISTENT, v.kind());
    assertEquals(PRIMARY, v.authority());
    assertEquals(4, v.blocks());
    assertTrue(v.bad().isEmpty());
  }

  @Test
  void aReplicaWhoseBlockDiffersIsBadAndThePrimaryIsTheAuthority() {
    Verdict v = decide(copies(copy(GOOD), copy(new int[] {10, 11, 99, 13}), copy(GOOD)));
    assertEquals(Kind.INCONSISTENT, v.kind());
    assertEquals(PRIMARY, v.authority());
    Finding f = v.bad().get(0);
    assertEquals(List.of(1), List.of(f.osd()));
    assertEquals(List.of(2), f.blocks());
    assertEquals(1, f.badBlocks());
    assertEquals("1 block differs", f.problem());
    assertFalse(f.repaired());
  }

  @Test
  void aCopyWithABlockItsStoreRefusedIsBadEvenWhereItsCrcsMatch() {
    Verdict v = decide(copies(copy(GOOD), copy(GOOD), copy(GOOD, 3)));
    assertEquals(Kind.INCONSISTENT, v.kind());
    Finding f = v.bad().get(0);
    assertEquals(7, f.osd());
    assertEquals(List.of(3), f.blocks());
    assertEquals("1 block unreadable", f.problem());
  }

  @Test
  void aPrimaryThatAgreesWithNoOneLosesToTheMajority() {
    Verdict v = decide(copies(copy(new int[] {10, 0, 12, 13}), copy(GOOD), copy(GOOD)));
    assertEquals(Kind.INCONSISTENT, v.kind());
    assertEquals(1, v.authority(), "the first member of the majority");
    assertEquals(1, v.bad().size());
    assertEquals(PRIMARY, v.bad().get(0).osd());
    assertEquals(List.of(1), v.bad().get(0).blocks());
  }

  @Test
  void anUnreadablePrimaryIsRepairedFromTheMajority() {
    Verdict v = decide(copies(copy(GOOD, 0, 2), copy(GOOD), copy(GOOD)));
    assertEquals(Kind.INCONSISTENT, v.kind());
    assertEquals(1, v.authority());
    assertEquals(List.of(0, 2), v.bad().get(0).blocks());
    assertEquals("2 blocks unreadable", v.bad().get(0).problem());
  }

  @Test
  void threeDifferentCopiesHaveNoAuthority() {
    Verdict v =
        decide(
            copies(
                copy(new int[] {1, 11, 12, 13}),
                copy(new int[] {2, 11, 12, 13}),
                copy(new int[] {3, 11, 12, 13})));
    assertEquals(Kind.UNREPAIRABLE, v.kind());
    assertEquals(-1, v.authority());
    Finding f = v.bad().get(0);
    assertEquals(-1, f.osd());
    assertEquals(List.of(0), f.blocks());
    assertTrue(f.problem().startsWith("no authoritative copy"), f.problem());
  }

  @Test
  void twoCopiesThatDifferHaveNoMajorityButAnUnreadableOneLosesToTheReadableOne() {
    Map<Integer, ObjectDigest> two = new LinkedHashMap<>();
    two.put(PRIMARY, copy(GOOD));
    two.put(1, copy(new int[] {10, 11, 12, 14}));
    assertEquals(Kind.UNREPAIRABLE, decide(two).kind());

    two.put(1, copy(GOOD, 1));
    Verdict v = decide(two);
    assertEquals(Kind.INCONSISTENT, v.kind());
    assertEquals(PRIMARY, v.authority());
    assertEquals(1, v.bad().get(0).osd());

    two.put(PRIMARY, copy(GOOD, 0));
    two.put(1, copy(GOOD));
    assertEquals(1, decide(two).authority(), "the only readable copy");

    two.put(1, copy(GOOD, 3));
    Verdict none = decide(two);
    assertEquals(Kind.UNREPAIRABLE, none.kind());
    assertTrue(none.reason().startsWith("no readable copy"), none.reason());
  }

  @Test
  void sizeAndAttributesCountAsDifferences() {
    ObjectDigest shorter =
        new ObjectDigest(true, 3L * 4096, V, 77, new int[] {10, 11, 12}, new int[0]);
    Finding f = decide(copies(copy(GOOD), copy(GOOD), shorter)).bad().get(0);
    assertEquals(7, f.osd());
    assertEquals(List.of(3), f.blocks(), "the block it lacks");
    assertEquals("1 block differs, size 12288, authority's 16384", f.problem());

    ObjectDigest otherAttrs = new ObjectDigest(true, 4L * 4096, V, 78, GOOD, new int[0]);
    Finding a = decide(copies(copy(GOOD), otherAttrs, copy(GOOD))).bad().get(0);
    assertEquals(1, a.osd());
    assertEquals(0, a.badBlocks());
    assertEquals("attributes differ", a.problem());
  }

  @Test
  void versionsThatDifferAreLeftToRecovery() {
    ObjectDigest older =
        new ObjectDigest(true, 4L * 4096, new Eversion(5, 11), 77, GOOD, new int[0]);
    Verdict v = decide(copies(copy(GOOD), older, copy(new int[] {0, 0, 0, 0})));
    assertEquals(Kind.SKIPPED, v.kind());
    assertTrue(v.reason().contains("osd.1 5'11"), v.reason());
    assertTrue(v.bad().isEmpty());

    // The log says 5'13: every copy is behind it.
    Verdict behindLog =
        ScrubCompare.decide(
            "obj", PRIMARY, copies(copy(GOOD), copy(GOOD), copy(GOOD)), new Eversion(5, 13));
    assertEquals(Kind.SKIPPED, behindLog.kind());

    // A member without the object, which the log says exists: recovery's too.
    Verdict missing = decide(copies(copy(GOOD), ObjectDigest.missing(), copy(GOOD)));
    assertEquals(Kind.SKIPPED, missing.kind());
    assertTrue(missing.reason().contains("osd.1 missing"), missing.reason());
  }

  @Test
  void anObjectNoMemberHasIsGone() {
    Verdict v =
        decide(copies(ObjectDigest.missing(), ObjectDigest.missing(), ObjectDigest.missing()));
    assertEquals(Kind.GONE, v.kind());
  }

  @Test
  void withoutALogEntryThePrimarysVersionIsTheOneToMatch() {
    Verdict v =
        ScrubCompare.decide(
            "obj", PRIMARY, copies(copy(GOOD), copy(GOOD), copy(new int[] {10, 11, 12, 0})), null);
    assertEquals(Kind.INCONSISTENT, v.kind());
    assertEquals(List.of(3), v.bad().get(0).blocks());
  }
}
