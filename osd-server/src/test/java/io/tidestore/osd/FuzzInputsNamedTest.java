package io.tidestore.osd;

import io.tidestore.store.testing.FuzzInputs;
import org.junit.jupiter.api.Test;

/** osd-server's fuzz inputs all say what they are ({@link FuzzInputs}). */
class FuzzInputsNamedTest {
  @Test
  void noInputKeepsTheNameLibFuzzerGaveIt() {
    FuzzInputs.assertEveryInputNamed();
  }
}
