package io.tidestore.store.record;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.ByteBuffer;

/**
 * Throwaway proof that Jazzer instruments our Java 25 class files: a bug planted behind a magic
 * number and a record pattern, which only coverage and compare feedback can find. Removed once
 * `JAZZER_FUZZ=1` has found it.
 */
class PlantedBugFuzzTest {
  sealed interface Header permits Plain, Tagged {}

  record Plain(int magic) implements Header {}

  record Tagged(int magic, long tag) implements Header {}

  static Header parse(byte[] in) {
    if (in.length < 12) {
      return new Plain(0);
    }
    ByteBuffer b = ByteBuffer.wrap(in);
    return new Tagged(b.getInt(), b.getLong());
  }

  @FuzzTest(maxDuration = "2m")
  void findsThePlant(byte[] input) {
    switch (parse(input)) {
      case Tagged(int magic, long tag) when magic == 0x7d15c0de && tag == 0x1234_5678_9abc_def0L ->
          throw new IllegalStateException("planted bug found");
      case Plain p -> {}
      case Tagged t -> {}
    }
  }
}
