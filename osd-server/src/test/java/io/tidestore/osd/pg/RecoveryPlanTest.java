package io.tidestore.osd.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.cluster.pg.Eversion;
import io.tidestore.cluster.pg.PgLogEntry;
import io.tidestore.osd.ops.LogCopy;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What recovery decides to move, from the authority's log and the log of a copy behind it. */
class RecoveryPlanTest {
  private static PgLogEntry e(long epoch, long version, String object) {
    return new PgLogEntry(
        PgLogEntry.Op.MODIFY, object, new Eversion(epoch, version), Eversion.ZERO, 1, version);
  }

  @Test
  void aCopyBehindGetsTheObjectsOfTheEntriesItMisses() {
    List<PgLogEntry> all = List.of(e(1, 1, "a"), e(1, 2, "b"), e(2, 3, "c"), e(2, 4, "a"));
    LogCopy authority = new LogCopy(Eversion.ZERO, all);
    LogCopy behind = new LogCopy(Eversion.ZERO, all.subList(0, 2));
    Recovery.Plan plan = Recovery.Plan.of(authority, behind);
    assertFalse(plan.backfill());
    assertEquals(Set.of("c", "a"), plan.objects());
    assertEquals(all.subList(2, 4), plan.sync().add());
    assertTrue(plan.sync().remove().isEmpty());
  }

  @Test
  void divergentEntriesAreRemovedAndTheirObjectsRolledBackToTheAuthoritys() {
    // The copy took (1,3) on "x" from a primary that died; the new primary ordered (2,3) on "y".
    LogCopy authority =
        new LogCopy(Eversion.ZERO, List.of(e(1, 1, "a"), e(1, 2, "b"), e(2, 3, "y")));
    LogCopy behind = new LogCopy(Eversion.ZERO, List.of(e(1, 1, "a"), e(1, 2, "b"), e(1, 3, "x")));
    Recovery.Plan plan = Recovery.Plan.of(authority, behind);
    assertFalse(plan.backfill());
    assertEquals(Set.of("x", "y"), plan.objects());
    assertEquals(List.of(new Eversion(1, 3)), plan.sync().remove());
    assertEquals(List.of(e(2, 3, "y")), plan.sync().add());
  }

  @Test
  void entriesACopyTrimmedAreNotMissing() {
    // The authority's log was filled by recovery and keeps entries the copy applied and trimmed.
    List<PgLogEntry> all = new ArrayList<>();
    for (long v = 1; v <= 10; v++) {
      all.add(e(4, v, "o" + v));
    }
    LogCopy authority = new LogCopy(Eversion.ZERO, all);
    LogCopy behind = new LogCopy(new Eversion(4, 6), all.subList(6, 8));
    Recovery.Plan plan = Recovery.Plan.of(authority, behind);
    assertFalse(plan.backfill());
    assertEquals(all.subList(8, 10), plan.sync().add());
    assertEquals(Set.of("o9", "o10"), plan.objects());
  }

  @Test
  void aCopyThatMissedMoreThanTheLogKeepsIsBackfilled() {
    List<PgLogEntry> kept = new ArrayList<>();
    for (long v = 1001; v <= 1100; v++) {
      kept.add(e(3, v, "hot"));
    }
    LogCopy authority = new LogCopy(new Eversion(3, 1000), kept);
    LogCopy behind = new LogCopy(Eversion.ZERO, List.of(e(1, 1, "a"), e(1, 2, "hot")));
    Recovery.Plan plan = Recovery.Plan.of(authority, behind);
    assertTrue(plan.backfill());
    assertEquals(new Eversion(3, 1000), plan.sync().tail());
    assertEquals(List.of(new Eversion(1, 1), new Eversion(1, 2)), plan.sync().remove());
    assertEquals(kept, plan.sync().add());
  }

  @Test
  void aCopyWhoseHeadIsTheAuthoritysTailNeedsNoBackfill() {
    LogCopy authority = new LogCopy(new Eversion(1, 2), List.of(e(1, 3, "c")));
    LogCopy behind = new LogCopy(Eversion.ZERO, List.of(e(1, 1, "a"), e(1, 2, "b")));
    Recovery.Plan plan = Recovery.Plan.of(authority, behind);
    assertFalse(plan.backfill());
    assertEquals(Set.of("c"), plan.objects());
    assertTrue(plan.sync().remove().isEmpty(), "entries older than the authority's tail stay");
  }
}
