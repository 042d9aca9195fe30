package io.tidestore.cluster.pg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.tidestore.store.testing.AllocationBound;
import io.tidestore.store.testing.SeedCorpus;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes what an OSD reads of a PG's metadata from its store (or, inside REP_OP and recovery's
 * bodies, from a peer): {@link PgLogEntry#decode} and {@link PgMeta#decodeEversion} (the log's
 * tail, an object's {@code _v}). The first input byte's bit 0 picks the decoder. The contract: an
 * IllegalArgumentException (PgLog.load and the protocol readers turn it into a clear error), or a
 * value whose encoding is the input again (both encodings are canonical: every field is read as
 * written, names as strict UTF-8); no other exception; allocation bounded by the input.
 */
class PgLogCodecFuzzTest {
  @FuzzTest
  void decode(byte[] input) {
    AllocationBound.check("PG log codec", input.length, 64 << 10, 64, () -> exercise(input));
  }

  private static void exercise(byte[] input) {
    if (input.length == 0) {
      return;
    }
    byte[] bytes = Arrays.copyOfRange(input, 1, input.length);
    try {
      if ((input[0] & 1) == 0) {
        PgLogEntry entry = PgLogEntry.decode(bytes);
        assertArrayEquals(bytes, entry.encode(), "re-encoded " + entry);
      } else {
        Eversion v = PgMeta.decodeEversion(bytes);
        assertArrayEquals(bytes, PgMeta.encode(v), "re-encoded " + v);
      }
    } catch (IllegalArgumentException e) {
      // the documented refusal
    }
  }

  /** The checked-in seeds are the codec's encodings of these values. */
  @Test
  void seedsAreTheCodecsEncodings() {
    SeedCorpus.check(PgLogCodecFuzzTest.class, "decode", seeds());
  }

  static Map<String, byte[]> seeds() {
    Map<String, byte[]> seeds = new LinkedHashMap<>();
    seeds.put(
        "entry-modify-new",
        entry(
            new PgLogEntry(
                PgLogEntry.Op.MODIFY, "rbd_data.1", new Eversion(3, 1), Eversion.ZERO, 42, 7)));
    seeds.put(
        "entry-modify",
        entry(
            new PgLogEntry(
                PgLogEntry.Op.MODIFY,
                "obj",
                new Eversion(9, 17),
                new Eversion(3, 1),
                -1,
                1L << 40)));
    seeds.put(
        "entry-delete-unicode",
        entry(
            new PgLogEntry(
                PgLogEntry.Op.DELETE,
                "objet-\u00e9t\u00e9-\u6587\u4ef6-\ud83d\ude00",
                new Eversion(0xffff_ffffL, Long.MAX_VALUE),
                new Eversion(0xffff_fffeL, 5),
                0,
                0)));
    seeds.put(
        "entry-longest-name",
        entry(
            new PgLogEntry(
                PgLogEntry.Op.MODIFY,
                "n".repeat(1024),
                new Eversion(1, 2),
                new Eversion(1, 1),
                1,
                2)));
    seeds.put("eversion-zero", eversion(Eversion.ZERO));
    seeds.put("eversion", eversion(new Eversion(12, 345)));
    seeds.put("eversion-largest", eversion(new Eversion(0xffff_ffffL, Long.MAX_VALUE)));
    return seeds;
  }

  private static byte[] entry(PgLogEntry e) {
    return SeedCorpus.prefixed(0, e.encode());
  }

  private static byte[] eversion(Eversion v) {
    return SeedCorpus.prefixed(1, PgMeta.encode(v));
  }
}
