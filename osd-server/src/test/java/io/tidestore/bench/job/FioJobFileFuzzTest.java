package io.tidestore.bench.job;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.tidestore.store.testing.AllocationBound;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Fuzzes {@link FioJobFile#parse}, the reader of the fio job files {@code tidestore bench} and the
 * sweeps run. The contract (FioJobFile, FioJob): an IllegalArgumentException whose message starts
 * with the source and, where a line is at fault, a line of the file; or jobs whose values are in
 * their documented ranges (a name, rwmixread 0-100, a block size that is a positive multiple of
 * 512, iodepth and numjobs at least 1, sizes and times not negative and finite, time_based only
 * with a runtime, a distribution fio accepts), whose numbers are written in ASCII digits as fio
 * itself reads them (the options are passed on to real fio as written, {@link FioJob#toJobFile}),
 * and whose job file, rendered, reads back as the same job. No other exception; allocation bounded
 * by the file's size.
 */
class FioJobFileFuzzTest {
  private static final String SOURCE = "fuzz.fio";
  private static final Pattern WHERE = Pattern.compile(Pattern.quote(SOURCE) + "(:(\\d+))?[: ]");
  private static final Pattern NUMERIC =
      Pattern.compile("rwmix(read|write)|bs|blocksize|iodepth|numjobs|size|runtime|ramp_time");

  @FuzzTest
  void parse(byte[] input) {
    String text = new String(input, UTF_8);
    List<List<FioJob>> parsed = new ArrayList<>(1);
    // Only the parse is measured: rendering every job back (below) costs jobs x options. Four
    // bytes ("[j]\n") make a job, its maps and records: about 700 bytes per input byte were seen.
    AllocationBound.check(
        "fio job file", input.length, 1 << 20, 4096, () -> parsed.add(parseOrRefuse(text)));
    List<FioJob> jobs = parsed.getLast();
    if (jobs == null) {
      return;
    }
    assertFalse(jobs.isEmpty(), "no jobs and no error");
    for (FioJob job : jobs) {
      assertSane(job);
      List<FioJob> again = FioJobFile.parse(SOURCE, job.toJobFile(Map.of()));
      assertEquals(List.of(job), again, "the rendered job file read back");
    }
  }

  /** The jobs, or null after checking the refusal. */
  private static List<FioJob> parseOrRefuse(String text) {
    try {
      return FioJobFile.parse(SOURCE, text);
    } catch (IllegalArgumentException e) {
      assertWhere(e.getMessage(), text.split("\\R", -1).length);
      return null;
    }
  }

  private static void assertSane(FioJob job) {
    String what = job.toString();
    assertFalse(job.name().isEmpty(), "a job without a name: " + what);
    assertNotNull(job.rw(), what);
    assertTrue(job.rwmixread() >= 0 && job.rwmixread() <= 100, what);
    assertTrue(job.blockSize() > 0 && job.blockSize() % 512 == 0, what);
    assertTrue(job.iodepth() >= 1 && job.numjobs() >= 1, what);
    assertTrue(job.size() >= 0, what);
    assertTrue(Double.isFinite(job.runtimeSeconds()) && job.runtimeSeconds() >= 0, what);
    assertTrue(Double.isFinite(job.rampSeconds()) && job.rampSeconds() >= 0, what);
    assertTrue(!job.timeBased() || job.runtimeSeconds() > 0, what);
    RandomDistribution d = job.distribution();
    assertTrue(Double.isFinite(d.parameter()) && d.parameter() >= 0, what);
    assertTrue(d.kind() == RandomDistribution.Kind.RANDOM || job.rw().random(), what);
    job.options()
        .forEach(
            (key, value) ->
                assertTrue(
                    !NUMERIC.matcher(key).matches() || value.chars().allMatch(c -> c < 0x80),
                    key + "=" + value + " is not fio's number syntax: " + what));
  }

  private static void assertWhere(String message, int lines) {
    Matcher m = WHERE.matcher(message);
    assertTrue(m.lookingAt(), "no source in: " + message);
    if (m.group(2) != null) {
      long line = Long.parseLong(m.group(2));
      assertTrue(line >= 1 && line <= lines, "line " + line + " of " + lines + ": " + message);
    }
  }
}
