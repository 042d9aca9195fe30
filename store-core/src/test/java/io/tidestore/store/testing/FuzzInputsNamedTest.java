package io.tidestore.store.testing;

import org.junit.jupiter.api.Test;

/** store-core's fuzz inputs all say what they are ({@link FuzzInputs}). */
class FuzzInputsNamedTest {
  @Test
  void noInputKeepsTheNameLibFuzzerGaveIt() {
    FuzzInputs.assertEveryInputNamed();
  }
}
