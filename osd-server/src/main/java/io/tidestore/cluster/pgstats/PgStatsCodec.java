package io.tidestore.cluster.pgstats;

import io.tidestore.cluster.pg.Eversion;
import io.tidestore.cluster.placement.PgId;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The wire form of PG reports (after a HEARTBEAT's own fields) and of the PG summary (a PG_STATS
 * reply): big-endian fields, strings as {@link DataOutputStream#writeUTF}, lists as a u32 count. A
 * PG is its pool (u32) and seed (u32); a version its epoch and number (two u64).
 */
public final class PgStatsCodec {
  private PgStatsCodec() {}

  public static void writeReport(DataOutputStream out, PgReport report) throws IOException {
    out.writeLong(report.mapEpoch());
    out.writeLong(report.recoveredObjects());
    out.writeLong(report.recoveredBytes());
    out.writeInt(report.pgs().size());
    for (PgStat s : report.pgs()) {
      writePg(out, s.pg());
      out.writeUTF(s.state());
      out.writeUTF(s.interval());
      writeVersion(out, s.head());
    }
  }

  public static PgReport readReport(DataInputStream in) throws IOException {
    long epoch = in.readLong();
    long objects = in.readLong();
    long bytes = in.readLong();
    int n = count(in);
    List<PgStat> pgs = new ArrayList<>(Math.min(n, 1024));
    for (int i = 0; i < n; i++) {
      pgs.add(new PgStat(readPg(in), in.readUTF(), in.readUTF(), readVersion(in)));
    }
    return new PgReport(epoch, objects, bytes, pgs);
  }

  public static void writeSummary(DataOutputStream out, PgSummary summary) throws IOException {
    out.writeLong(summary.epoch());
    out.writeDouble(summary.recoveringObjectsPerSec());
    out.writeDouble(summary.recoveringBytesPerSec());
    out.writeInt(summary.pgs().size());
    for (PgSummary.Pg pg : summary.pgs()) {
      writePg(out, pg.pg());
      out.writeUTF(pg.state());
      out.writeInt(pg.primary());
      writeVersion(out, pg.head());
    }
  }

  public static PgSummary readSummary(DataInputStream in) throws IOException {
    long epoch = in.readLong();
    double objects = in.readDouble();
    double bytes = in.readDouble();
    int n = count(in);
    List<PgSummary.Pg> pgs = new ArrayList<>(Math.min(n, 1024));
    for (int i = 0; i < n; i++) {
      pgs.add(new PgSummary.Pg(readPg(in), in.readUTF(), in.readInt(), readVersion(in)));
    }
    return new PgSummary(epoch, objects, bytes, pgs);
  }

  private static int count(DataInputStream in) throws IOException {
    int n = in.readInt();
    if (n < 0) {
      throw new IOException("a PG stats list claims " + Integer.toUnsignedString(n) + " entries");
    }
    return n;
  }

  private static void writePg(DataOutputStream out, PgId pg) throws IOException {
    out.writeInt(pg.pool());
    out.writeInt(pg.seed());
  }

  private static PgId readPg(DataInputStream in) throws IOException {
    int pool = in.readInt();
    if (pool < 0) {
      throw new IOException("a PG stat names pool " + Integer.toUnsignedString(pool));
    }
    return new PgId(pool, in.readInt());
  }

  private static void writeVersion(DataOutputStream out, Eversion v) throws IOException {
    out.writeLong(v.epoch());
    out.writeLong(v.version());
  }

  private static Eversion readVersion(DataInputStream in) throws IOException {
    long epoch = in.readLong();
    long version = in.readLong();
    try {
      return new Eversion(epoch, version);
    } catch (IllegalArgumentException e) {
      throw new IOException("a PG stat carries a bad version: " + e.getMessage(), e);
    }
  }
}
