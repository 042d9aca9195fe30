package io.tidestore.osd.pg;

import io.tidestore.cluster.pg.Eversion;
import io.tidestore.osd.ops.ObjectDigest;
import io.tidestore.osd.ops.ScrubReport;
import io.tidestore.osd.ops.ScrubReport.Finding;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Deep scrub's decision for one object, from every acting member's {@link ObjectDigest}: a pure
 * function, so every rule is tested without an OSD.
 *
 * <ul>
 *   <li>Members whose versions differ (from each other, or from the version the primary's log gives
 *       the object) are recovery's business: the object is <b>skipped</b>, never "repaired" by
 *       scrub.
 *   <li>A copy with a block its store refused to read is bad, whatever the others hold.
 *   <li>The <b>authority</b> is the primary's copy when it is readable and some other member's copy
 *       is the same; otherwise the copy a strict majority of the members hold; otherwise, when all
 *       readable copies are the same (the others being unreadable), that copy. Else no copy is
 *       authoritative and nothing is repaired.
 *   <li>Every copy not the same as the authority's is bad, with the blocks where it differs.
 * </ul>
 */
final class ScrubCompare {
  private ScrubCompare() {}

  /** What became of one object. */
  enum Kind {
    /** Every copy is the same. */
    CONSISTENT,
    /** No member has it any more (removed since it was listed). */
    GONE,
    /** Versions differ: left to recovery. */
    SKIPPED,
    /** Some copies are bad; {@link Verdict#authority} holds the good one. */
    INCONSISTENT,
    /** Some copies differ and none is authoritative. */
    UNREPAIRABLE
  }

  /**
   * The outcome for one object.
   *
   * @param kind what it is
   * @param authority the member whose copy the bad ones get, or -1
   * @param blocks blocks compared
   * @param reason why it was skipped or cannot be repaired, else ""
   * @param bad the bad copies (INCONSISTENT), or the object as a whole (UNREPAIRABLE, osd -1)
   */
  record Verdict(Kind kind, int authority, long blocks, String reason, List<Finding> bad) {
    Verdict {
      bad = List.copyOf(bad);
    }
  }

  /**
   * Decides for object {@code name}.
   *
   * @param primary the scrubbing primary (one of {@code copies})
   * @param copies each acting member's copy, by OSD id, in acting order
   * @param logVersion the object's version in the primary's log, or null when the log has none
   */
  static Verdict decide(
      String name, int primary, Map<Integer, ObjectDigest> copies, Eversion logVersion) {
    if (copies.values().stream().noneMatch(ObjectDigest::exists)) {
      return new Verdict(Kind.GONE, -1, 0, "", List.of());
    }
    ObjectDigest mine = copies.get(primary);
    Eversion expected = logVersion != null ? logVersion : version(mine);
    for (var c : copies.entrySet()) {
      if (!Objects.equals(version(c.getValue()), expected)) {
        return new Verdict(Kind.SKIPPED, -1, 0, "versions differ: " + versions(copies), List.of());
      }
    }
    int authority = authority(primary, copies);
    long blocks = 0;
    for (ObjectDigest d : copies.values()) {
      blocks = Math.max(blocks, d.blocks());
    }
    if (authority < 0) {
      return unrepairable(name, copies, blocks, authority == NO_READABLE);
    }
    ObjectDigest good = copies.get(authority);
    List<Finding> bad = new ArrayList<>();
    for (var c : copies.entrySet()) {
      if (!c.getValue().sameAs(good)) {
        bad.add(compare(name, c.getKey(), c.getValue(), good));
      }
    }
    return new Verdict(
        bad.isEmpty() ? Kind.CONSISTENT : Kind.INCONSISTENT, authority, blocks, "", bad);
  }

  private static final int NO_READABLE = -2;
  private static final int NO_MAJORITY = -1;

  private static Eversion version(ObjectDigest d) {
    return d == null || !d.exists() ? null : d.version();
  }

  private static String versions(Map<Integer, ObjectDigest> copies) {
    StringBuilder s = new StringBuilder();
    for (var c : copies.entrySet()) {
      Eversion v = version(c.getValue());
      s.append(s.isEmpty() ? "" : ", ")
          .append("osd.")
          .append(c.getKey())
          .append(' ')
          .append(!c.getValue().exists() ? "missing" : v == null ? "no version" : v.toString());
    }
    return s.toString();
  }

  /** The authoritative member, or NO_MAJORITY / NO_READABLE. */
  private static int authority(int primary, Map<Integer, ObjectDigest> copies) {
    ObjectDigest mine = copies.get(primary);
    if (mine.unreadableCount() == 0) {
      for (var c : copies.entrySet()) {
        if (c.getKey() != primary && c.getValue().sameAs(mine)) {
          return primary;
        }
      }
    }
    // Classes of identical readable copies, each named by its first member in acting order.
    List<Integer> firsts = new ArrayList<>();
    List<Integer> counts = new ArrayList<>();
    for (var c : copies.entrySet()) {
      if (c.getValue().unreadableCount() > 0) {
        continue;
      }
      int i = 0;
      while (i < firsts.size() && !copies.get(firsts.get(i)).sameAs(c.getValue())) {
        i++;
      }
      if (i == firsts.size()) {
        firsts.add(c.getKey());
        counts.add(1);
      } else {
        counts.set(i, counts.get(i) + 1);
      }
    }
    if (firsts.isEmpty()) {
      return NO_READABLE;
    }
    for (int i = 0; i < firsts.size(); i++) {
      if (2 * counts.get(i) > copies.size()) {
        return firsts.get(i);
      }
    }
    return firsts.size() == 1 ? firsts.get(0) : NO_MAJORITY;
  }

  /** How copy {@code bad} of member {@code osd} differs from {@code good}. */
  static Finding compare(String name, int osd, ObjectDigest bad, ObjectDigest good) {
    if (!bad.exists()) {
      return new Finding(name, osd, "missing", good.blocks(), List.of(), false);
    }
    int n = Math.max(bad.blocks(), good.blocks());
    List<Integer> listed = new ArrayList<>();
    int differ = 0;
    int unreadable = 0;
    for (int b = 0; b < n; b++) {
      boolean broken = b < bad.blocks() && !bad.readable(b);
      boolean differs =
          !broken && (b >= bad.blocks() || b >= good.blocks() || bad.crc(b) != good.crc(b));
      if (broken) {
        unreadable++;
      } else if (differs) {
        differ++;
      }
      if ((broken || differs) && listed.size() < ScrubReport.MAX_BLOCKS) {
        listed.add(b);
      }
    }
    List<String> what = new ArrayList<>();
    if (unreadable > 0) {
      what.add(unreadable + (unreadable == 1 ? " block" : " blocks") + " unreadable");
    }
    if (differ > 0) {
      what.add(differ + (differ == 1 ? " block differs" : " blocks differ"));
    }
    if (bad.size() != good.size()) {
      what.add("size " + bad.size() + ", authority's " + good.size());
    }
    if (bad.attrsCrc() != good.attrsCrc()) {
      what.add("attributes differ");
    }
    return new Finding(name, osd, String.join(", ", what), unreadable + differ, listed, false);
  }

  /** No copy to trust: one finding for the object, naming the blocks where copies disagree. */
  private static Verdict unrepairable(
      String name, Map<Integer, ObjectDigest> copies, long blocks, boolean noneReadable) {
    List<Integer> listed = new ArrayList<>();
    int differing = 0;
    for (int b = 0; b < blocks; b++) {
      boolean differs = false;
      boolean first = true;
      int seen = 0;
      for (ObjectDigest d : copies.values()) {
        if (b >= d.blocks() || !d.readable(b) || (!first && seen != d.crc(b))) {
          differs = true;
          break;
        }
        seen = d.crc(b);
        first = false;
      }
      if (differs) {
        differing++;
        if (listed.size() < ScrubReport.MAX_BLOCKS) {
          listed.add(b);
        }
      }
    }
    String why =
        noneReadable
            ? "no readable copy: every member's store refused some block"
            : "no authoritative copy: the copies differ and no majority holds one ("
                + copies.keySet().stream().map(o -> "osd." + o).toList()
                + ")";
    return new Verdict(
        Kind.UNREPAIRABLE,
        -1,
        blocks,
        why,
        List.of(new Finding(name, -1, why, differing, listed, false)));
  }
}
