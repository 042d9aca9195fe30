package io.tidestore.osd.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.tidestore.cluster.pg.Eversion;
import io.tidestore.osd.ops.ObjectDigest;
import io.tidestore.osd.ops.ScrubReport;
import io.tidestore.store.testing.SeedCorpus;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes deep scrub's v2 bodies ({@link V2Scrub}): a BLOCK_CRCS request as a member reads it, a
 * BLOCK_CRCS reply ({@link ObjectDigest}) as the primary reads it, and a DEEP_SCRUB reply ({@link
 * ScrubReport}) as a client reads it. The first input byte (mod 3) picks the reader. The contract
 * ({@link BodyFuzzing}): an {@link OpException}, or a value whose encoding is the bytes the reader
 * took (the request takes the whole body; the replies leave what follows them to the caller), a
 * digest with exactly one crc per 4 KiB block of its size; no other exception; allocation bounded
 * by the input, never by a count.
 */
class V2ScrubFuzzTest {
  private static final int REQUEST = 0;
  private static final int DIGEST = 1;
  private static final int REPORT = 2;

  private static final BodyFuzzing.Codec<String> REQUEST_CODEC =
      new BodyFuzzing.Codec<>(V2Scrub::readBlockCrcsRequest, V2Scrub::writeBlockCrcsRequest);
  private static final BodyFuzzing.Codec<ObjectDigest> DIGEST_CODEC =
      new BodyFuzzing.Codec<>(V2Scrub::readDigest, V2Scrub::writeDigest);
  private static final BodyFuzzing.Codec<ScrubReport> REPORT_CODEC =
      new BodyFuzzing.Codec<>(V2Scrub::readReport, V2Scrub::writeReport);

  @FuzzTest
  void read(byte[] input) {
    BodyFuzzing.bounded("v2 scrub bodies", input, V2ScrubFuzzTest::exercise);
  }

  private static void exercise(byte[] input) {
    switch (Byte.toUnsignedInt(input[0]) % 3) {
      case REQUEST -> BodyFuzzing.roundTrip(input, 1, REQUEST_CODEC, true, n -> {}, n -> {});
      case DIGEST ->
          BodyFuzzing.roundTrip(
              input, 1, DIGEST_CODEC, false, V2ScrubFuzzTest::checkDigest, d -> {});
      default -> BodyFuzzing.roundTrip(input, 1, REPORT_CODEC, false, r -> {}, r -> {});
    }
  }

  /** One crc per block of the size, the last one short (the primary compares them by index). */
  private static void checkDigest(ObjectDigest d) {
    long size = d.size();
    long blocks = size / ObjectDigest.BLOCK + (size % ObjectDigest.BLOCK == 0 ? 0 : 1);
    assertEquals(blocks, d.blocks(), "crcs for an object of " + size + " bytes");
  }

  /** The checked-in seeds are the codec's encodings of these values. */
  @Test
  void seedsAreTheCodecsEncodings() {
    SeedCorpus.check(V2ScrubFuzzTest.class, "read", seeds());
  }

  static Map<String, byte[]> seeds() {
    Map<String, byte[]> seeds = new LinkedHashMap<>();
    seeds.put("request", BodyFuzzing.seed(REQUEST, out -> V2Scrub.writeBlockCrcsRequest(out, "o")));
    seeds.put(
        "digest-missing",
        BodyFuzzing.seed(DIGEST, out -> V2Scrub.writeDigest(out, ObjectDigest.missing())));
    seeds.put(
        "digest",
        BodyFuzzing.seed(
            DIGEST,
            out ->
                V2Scrub.writeDigest(
                    out,
                    new ObjectDigest(
                        true,
                        3 * ObjectDigest.BLOCK + 1,
                        new Eversion(5, 12),
                        0x1234_5678,
                        new int[] {1, -2, 3, 0},
                        new int[] {1, 3}))));
    seeds.put(
        "report",
        BodyFuzzing.seed(
            REPORT,
            out ->
                V2Scrub.writeReport(
                    out,
                    new ScrubReport(
                        "1.2f",
                        3,
                        120,
                        4000,
                        2,
                        1,
                        1,
                        1500,
                        List.of(
                            new ScrubReport.Finding(
                                "obj", 4, "2 blocks differ", 2, List.of(0, 7), true),
                            new ScrubReport.Finding(
                                "obj\u00e9", -1, "no authoritative copy", 300, List.of(), false)),
                        List.of("skipped: versions differ")))));
    seeds.put(
        "report-clean",
        BodyFuzzing.seed(
            REPORT,
            out ->
                V2Scrub.writeReport(
                    out, new ScrubReport("0.0", 0, 0, 0, 0, 0, 0, 0, List.of(), List.of()))));
    return seeds;
  }
}
