package io.tidestore.cluster.pgstats;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.tidestore.cluster.pg.Eversion;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.store.testing.AllocationBound;
import io.tidestore.store.testing.SeedCorpus;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes what a monitor reads of an OSD's heartbeat and a client of a monitor's PG_STATS reply:
 * {@link PgStatsCodec#readReport} and {@link PgStatsCodec#readSummary}. The first input byte's bit
 * 0 picks the reader. The contract: an IOException (EOF, a bad modified UTF-8 string, a negative
 * count or pool, a bad version), or a value; no other exception; allocation bounded by the input (a
 * count is never trusted). The encoding is not canonical: {@link DataInputStream#readUTF} takes
 * overlong forms of a character and a one-byte NUL, and a NaN rate reads back as Java's one NaN; so
 * the property checked is the weaker one, that the value's encoding reads back as the same value
 * (and encodes to the same bytes again).
 */
class PgStatsCodecFuzzTest {
  @FuzzTest
  void read(byte[] input) {
    AllocationBound.check("PG stats codec", input.length, 1 << 20, 64, () -> exercise(input));
  }

  private static void exercise(byte[] input) {
    if (input.length == 0) {
      return;
    }
    boolean summary = (input[0] & 1) != 0;
    Object value;
    try {
      value = read(summary, reader(input, 1));
    } catch (IOException e) {
      return; // the documented refusal
    }
    byte[] encoded = write(value);
    Object again;
    try {
      again = read(summary, reader(encoded, 0));
    } catch (IOException e) {
      throw new AssertionError("the encoding of " + value + " does not read back", e);
    }
    assertEquals(value, again, "read back");
    assertArrayEquals(encoded, write(again), "encoded again");
  }

  private static DataInputStream reader(byte[] bytes, int from) {
    return new DataInputStream(new ByteArrayInputStream(bytes, from, bytes.length - from));
  }

  private static Object read(boolean summary, DataInputStream in) throws IOException {
    return summary ? PgStatsCodec.readSummary(in) : PgStatsCodec.readReport(in);
  }

  private static byte[] write(Object value) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      switch (value) {
        case PgSummary s -> PgStatsCodec.writeSummary(out, s);
        case PgReport r -> PgStatsCodec.writeReport(out, r);
        default -> throw new IllegalArgumentException(value.toString());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /** The checked-in seeds are the codec's encodings of these values. */
  @Test
  void seedsAreTheCodecsEncodings() {
    SeedCorpus.check(PgStatsCodecFuzzTest.class, "read", seeds());
  }

  static Map<String, byte[]> seeds() {
    Map<String, byte[]> seeds = new LinkedHashMap<>();
    seeds.put("report-none", SeedCorpus.prefixed(0, write(PgReport.NONE)));
    seeds.put(
        "report",
        SeedCorpus.prefixed(
            0,
            write(
                new PgReport(
                    17,
                    1200,
                    5L << 30,
                    List.of(
                        new PgStat(
                            new PgId(1, 0), "active+clean", "3:3@5,1@7,", new Eversion(9, 4)),
                        new PgStat(
                            new PgId(1, 0x2f),
                            "active+recovering+degraded",
                            "1:1@7,",
                            new Eversion(17, 1L << 33)),
                        new PgStat(new PgId(2, -1), "peering", "", Eversion.ZERO))))));
    seeds.put(
        "summary",
        SeedCorpus.prefixed(
            1,
            write(
                new PgSummary(
                    21,
                    12.5,
                    3.0e6,
                    List.of(
                        new PgSummary.Pg(new PgId(1, 0), "active+clean", 3, new Eversion(9, 4)),
                        new PgSummary.Pg(new PgId(1, 1), "down", -1, Eversion.ZERO),
                        new PgSummary.Pg(
                            new PgId(3, 7), "stale+active+clean\u00e9", 0, new Eversion(1, 1)))))));
    seeds.put("summary-empty", SeedCorpus.prefixed(1, write(new PgSummary(0, 0, 0, List.of()))));
    return seeds;
  }
}
