package io.tidestore.cluster.pghistory;

import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.Codec;
import io.tidestore.cluster.map.MapFormatException;
import io.tidestore.cluster.map.PoolInfo;
import io.tidestore.cluster.placement.PgId;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The monitors' record of each PG's newest activation ({@link PgActivation}), kept beside the map
 * in the same Raft log and snapshot but outside the map itself: it changes at every activation and
 * only primaries read it, so it neither bumps the epoch nor travels with the map. Immutable.
 */
public final class PgActivations {
  /** Orders PG ids as Ceph lists them: by pool, then seed (unsigned). */
  public static final Comparator<PgId> ORDER =
      Comparator.comparingInt(PgId::pool)
          .thenComparing(PgId::seed, (a, b) -> Integer.compareUnsigned(a, b));

  public static final PgActivations EMPTY = new PgActivations(new TreeMap<>(ORDER));

  /** "TSPA": Tidestore PG activations. */
  private static final int MAGIC = 0x54535041;

  private static final int VERSION = 1;

  /**
   * A batch in the monitors' Raft log: the header of a map command ({@code u16 version=1}, {@code
   * u8 type}) with this type, beside the map commands' 1 to 6.
   */
  private static final int COMMAND_VERSION = 1;

  private static final int COMMAND_TYPE = 7;
  private static final int MAX_BATCH = 1 << 16;
  private static final int MAX_PGS = 1 << 24;

  private final SortedMap<PgId, PgActivation> byPg;

  private PgActivations(SortedMap<PgId, PgActivation> byPg) {
    this.byPg = Collections.unmodifiableSortedMap(byPg);
  }

  /** The newest activation recorded for {@code pg}, or null (it never activated). */
  public PgActivation get(PgId pg) {
    return byPg.get(pg);
  }

  public int size() {
    return byPg.size();
  }

  /** What applying a batch did: the activations after it and the PGs it refused. */
  public record Outcome(PgActivations activations, List<PgId> refused) {}

  /**
   * Records {@code batch} against {@code map}: an activation is refused when its pool is gone, when
   * it names an epoch the map has not reached, or when one from a later epoch is already recorded
   * (that primary's interval is over; it must not serve). Deterministic, as every monitor applies
   * it.
   */
  public Outcome apply(ClusterMap map, SortedMap<PgId, PgActivation> batch) {
    TreeMap<PgId, PgActivation> next = new TreeMap<>(byPg);
    List<PgId> refused = new ArrayList<>();
    for (Map.Entry<PgId, PgActivation> e : batch.entrySet()) {
      PgId pg = e.getKey();
      PgActivation a = e.getValue();
      PoolInfo pool = map.pools().get(pg.pool());
      PgActivation current = next.get(pg);
      boolean known = pool != null && Integer.compareUnsigned(pg.seed(), pool.pgNum()) < 0;
      if (!known || a.epoch() > map.epoch() || (current != null && current.epoch() > a.epoch())) {
        refused.add(pg);
      } else {
        next.put(pg, a);
      }
    }
    return new Outcome(refused.size() == batch.size() ? this : new PgActivations(next), refused);
  }

  /** Without the PGs of pools the map no longer has (a pool's ids are never reused). */
  public PgActivations keepPoolsOf(ClusterMap map) {
    TreeMap<PgId, PgActivation> next = new TreeMap<>(ORDER);
    byPg.forEach(
        (pg, a) -> {
          if (map.pools().containsKey(pg.pool())) {
            next.put(pg, a);
          }
        });
    return next.size() == byPg.size() ? this : new PgActivations(next);
  }

  /** Magic, version, count, then per PG: pool, seed, epoch, member count, members; a CRC32C. */
  public byte[] encode() {
    try {
      Codec.Writer w = new Codec.Writer();
      var out = w.out;
      out.writeInt(MAGIC);
      out.writeShort(VERSION);
      out.writeInt(byPg.size());
      for (Map.Entry<PgId, PgActivation> e : byPg.entrySet()) {
        out.writeInt(e.getKey().pool());
        out.writeInt(e.getKey().seed());
        e.getValue().writeTo(out);
      }
      return w.sealed();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static PgActivations decode(byte[] bytes) throws MapFormatException {
    try {
      Codec.Reader r = new Codec.Reader(bytes, "pg activations");
      var in = r.in;
      if (in.readInt() != MAGIC) {
        throw new MapFormatException("pg activations: bad magic");
      }
      int version = in.readUnsignedShort();
      if (version != VERSION) {
        throw new MapFormatException(
            "pg activations version " + version + " (this build reads " + VERSION + ")");
      }
      TreeMap<PgId, PgActivation> byPg = new TreeMap<>(ORDER);
      for (int n = r.count(MAX_PGS, "pg activation"); n > 0; n--) {
        PgId pg = pgId(in.readInt(), in.readInt());
        if (!byPg.isEmpty() && ORDER.compare(byPg.lastKey(), pg) >= 0) {
          throw new MapFormatException("pg " + pg + " is out of order or recorded twice");
        }
        byPg.put(pg, PgActivation.readFrom(in));
      }
      r.expectEnd("pg activations");
      return new PgActivations(byPg);
    } catch (EOFException e) {
      throw new MapFormatException("pg activations are truncated");
    } catch (MapFormatException e) {
      throw e;
    } catch (IOException e) {
      throw new MapFormatException("pg activations are unreadable: " + e.getMessage());
    }
  }

  /** A PG id read from the wire: a negative pool is a format error, not an exception of PgId. */
  public static PgId pgId(int pool, int seed) throws MapFormatException {
    if (pool < 0) {
      throw new MapFormatException("pool id " + pool + " is negative");
    }
    return new PgId(pool, seed);
  }

  /** Whether a Raft log entry is a batch of activations (not a map command). */
  public static boolean isCommand(byte[] entry) {
    return entry.length > 3
        && ((entry[0] & 0xff) << 8 | (entry[1] & 0xff)) == COMMAND_VERSION
        && (entry[2] & 0xff) == COMMAND_TYPE;
  }

  /**
   * A batch as the monitors' Raft log stores it: header, {@code u32 n {pool, seed, activation}},
   * CRC32C.
   */
  public static byte[] encodeCommand(SortedMap<PgId, PgActivation> batch) {
    try {
      Codec.Writer w = new Codec.Writer();
      w.out.writeShort(COMMAND_VERSION);
      w.out.writeByte(COMMAND_TYPE);
      w.out.writeInt(batch.size());
      for (var e : batch.entrySet()) {
        w.out.writeInt(e.getKey().pool());
        w.out.writeInt(e.getKey().seed());
        e.getValue().writeTo(w.out);
      }
      return w.sealed();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The batch {@link #encodeCommand} wrote; PGs in order, each once. */
  public static SortedMap<PgId, PgActivation> decodeCommand(byte[] entry)
      throws MapFormatException {
    try {
      Codec.Reader r = new Codec.Reader(entry, "pg activation batch");
      if (r.in.readUnsignedShort() != COMMAND_VERSION || r.in.readUnsignedByte() != COMMAND_TYPE) {
        throw new MapFormatException("not a pg activation batch");
      }
      TreeMap<PgId, PgActivation> batch = new TreeMap<>(ORDER);
      for (int n = r.count(MAX_BATCH, "pg activation"); n > 0; n--) {
        PgId pg = pgId(r.in.readInt(), r.in.readInt());
        if (!batch.isEmpty() && ORDER.compare(batch.lastKey(), pg) >= 0) {
          throw new MapFormatException("pg " + pg + " is out of order or twice in one batch");
        }
        batch.put(pg, PgActivation.readFrom(r.in));
      }
      r.expectEnd("pg activation batch");
      return batch;
    } catch (EOFException e) {
      throw new MapFormatException("pg activation batch is truncated");
    } catch (MapFormatException e) {
      throw e;
    } catch (IOException e) {
      throw new MapFormatException("pg activation batch is unreadable: " + e.getMessage());
    }
  }
}
