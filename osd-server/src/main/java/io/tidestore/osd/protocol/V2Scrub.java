package io.tidestore.osd.protocol;

import io.netty.buffer.ByteBuf;
import io.tidestore.cluster.pg.Eversion;
import io.tidestore.osd.ops.ObjectDigest;
import io.tidestore.osd.ops.ScrubReport;
import java.util.ArrayList;
import java.util.List;

/**
 * Deep scrub's ops of protocol v2 (docs/protocol.md, "Version 2"; docs/cluster.md, "Deep scrub"):
 * BLOCK_CRCS, a primary asking a member for its copy of an object as per-block crc32c, and
 * DEEP_SCRUB, a client asking a PG's primary to scrub it now and report. Each request starts as
 * recovery's do ({@link V2Recovery#writeHeader}). Readers throw {@link OpException} on malformed
 * input. Stateless.
 */
public final class V2Scrub {
  /** A member's copy of one object, as a digest per 4 KiB block. */
  public static final int BLOCK_CRCS = 0x37;

  /** Scrub a PG now (to its primary); the reply is the report. */
  public static final int DEEP_SCRUB = 0x38;

  private static final int EXISTS = 1;

  private V2Scrub() {}

  /** BLOCK_CRCS body, after the header: {@code name str16}. */
  public static void writeBlockCrcsRequest(ByteBuf out, String name) {
    Wire.writeString(out, name);
  }

  public static String readBlockCrcsRequest(ByteBuf in) {
    String name = RequestBodies.name(in);
    RequestBodies.end(in, BLOCK_CRCS);
    return name;
  }

  /** Bytes of a BLOCK_CRCS reply body for {@code d}, after the epoch. */
  public static int digestBytes(ObjectDigest d) {
    return 1 + 8 + Eversion.BYTES + 4 + 4 + 4 * d.blocks() + 4 + 4 * d.unreadableCount();
  }

  /**
   * BLOCK_CRCS reply, after the epoch: {@code flags u8 (1 exists), size u64, version eversion (0'0:
   * none), attrs_crc u32, count u32, count x crc u32, unreadable u32, unreadable x block u32}.
   */
  public static void writeDigest(ByteBuf out, ObjectDigest d) {
    out.writeByte(d.exists() ? EXISTS : 0).writeLong(d.size());
    V2Recovery.writeEversion(out, d.version() == null ? Eversion.ZERO : d.version());
    out.writeInt(d.attrsCrc()).writeInt(d.blocks());
    for (int b = 0; b < d.blocks(); b++) {
      out.writeInt(d.crc(b));
    }
    out.writeInt(d.unreadableCount());
    for (int i = 0; i < d.unreadableCount(); i++) {
      out.writeInt(d.unreadable(i));
    }
  }

  public static ObjectDigest readDigest(ByteBuf in) {
    boolean exists = RequestBodies.flags(in, EXISTS, "digest flags") != 0;
    long size = RequestBodies.offset(in, "object size");
    Eversion version = V2Recovery.readEversion(in, "object version");
    Wire.need(in, 8, "digest counts");
    int attrsCrc = in.readInt();
    int[] crcs = ints(in, "block crcs");
    int[] unreadable = ints(in, "unreadable blocks");
    try {
      return new ObjectDigest(
          exists, size, version.equals(Eversion.ZERO) ? null : version, attrsCrc, crcs, unreadable);
    } catch (IllegalArgumentException e) {
      throw new OpException(Status.EBADMSG, "digest: " + e.getMessage());
    }
  }

  private static int[] ints(ByteBuf in, String what) {
    Wire.need(in, 4, what);
    long n = in.readUnsignedInt();
    if (n > in.readableBytes() / 4) {
      throw new OpException(Status.EBADMSG, "body too short for " + n + " " + what);
    }
    int[] values = new int[(int) n];
    for (int i = 0; i < values.length; i++) {
      values[i] = in.readInt();
    }
    return values;
  }

  /**
   * DEEP_SCRUB reply, after the epoch: {@code pg str16, primary u32, objects u64, blocks u64,
   * inconsistent u32, repaired u32, skipped u32, millis u64, findings u32 x (object str16, osd i32,
   * problem str16, bad_blocks u32, listed u16 x block u32, repaired u8), skipped_listed u32 x
   * str16}.
   */
  public static void writeReport(ByteBuf out, ScrubReport r) {
    Wire.writeString(out, r.pg());
    out.writeInt(r.primary()).writeLong(r.objects()).writeLong(r.blocks());
    out.writeInt(r.inconsistent()).writeInt(r.repaired()).writeInt(r.skipped());
    out.writeLong(r.millis());
    out.writeInt(r.findings().size());
    for (ScrubReport.Finding f : r.findings()) {
      Wire.writeString(out, f.object());
      out.writeInt(f.osd());
      Wire.writeString(out, f.problem());
      out.writeInt(f.badBlocks()).writeShort(f.blocks().size());
      for (int b : f.blocks()) {
        out.writeInt(b);
      }
      out.writeByte(f.repaired() ? 1 : 0);
    }
    out.writeInt(r.skippedObjects().size());
    for (String s : r.skippedObjects()) {
      Wire.writeString(out, s);
    }
  }

  /** A report's size on the wire, roughly: for the reply's first buffer. */
  public static int reportHint(ScrubReport r) {
    int n = 64;
    for (ScrubReport.Finding f : r.findings()) {
      n += 16 + 3 * (f.object().length() + f.problem().length()) + 4 * f.blocks().size();
    }
    for (String s : r.skippedObjects()) {
      n += 2 + 3 * s.length();
    }
    return n;
  }

  public static ScrubReport readReport(ByteBuf in) {
    String pg = Wire.readString(in, 64, "pg id");
    Wire.need(in, 4 + 8 + 8 + 12 + 8 + 4, "scrub counts");
    int primary = in.readInt();
    long objects = in.readLong();
    long blocks = in.readLong();
    int inconsistent = in.readInt();
    int repaired = in.readInt();
    int skipped = in.readInt();
    long millis = in.readLong();
    long n = in.readUnsignedInt();
    if (n > ScrubReport.MAX_LISTED) {
      throw new OpException(Status.EMSGSIZE, n + " scrub findings");
    }
    List<ScrubReport.Finding> findings = new ArrayList<>();
    for (long i = 0; i < n; i++) {
      String object = RequestBodies.name(in);
      Wire.need(in, 4, "finding osd");
      int osd = in.readInt();
      String problem = Wire.readString(in, 0xffff, "finding");
      Wire.need(in, 6, "finding blocks");
      int bad = in.readInt();
      int listed = in.readUnsignedShort();
      Wire.need(in, 4 * listed + 1, "finding blocks");
      List<Integer> list = new ArrayList<>(listed);
      for (int b = 0; b < listed; b++) {
        list.add(in.readInt());
      }
      boolean repairedCopy = RequestBodies.bool(in, "finding repaired");
      findings.add(new ScrubReport.Finding(object, osd, problem, bad, list, repairedCopy));
    }
    Wire.need(in, 4, "skipped count");
    long s = in.readUnsignedInt();
    if (s > ScrubReport.MAX_LISTED) {
      throw new OpException(Status.EMSGSIZE, s + " skipped objects");
    }
    List<String> skippedObjects = new ArrayList<>();
    for (long i = 0; i < s; i++) {
      skippedObjects.add(Wire.readString(in, 0xffff, "skipped object"));
    }
    return new ScrubReport(
        pg,
        primary,
        objects,
        blocks,
        inconsistent,
        repaired,
        skipped,
        millis,
        findings,
        skippedObjects);
  }
}
