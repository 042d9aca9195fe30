package io.tidestore.store.record;

import java.lang.foreign.MemorySegment;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;

/**
 * Strict UTF-8 decoding of the names in records and checkpoints. A lenient decode would turn a
 * damaged name into another one (U+FFFD in place of the bad bytes) and apply it as if it were
 * written: a name that is not valid UTF-8 is a corrupt record instead.
 */
public final class Utf8 {
  private Utf8() {}

  /**
   * The {@code n} bytes at {@code p} of {@code bytes} as a string.
   *
   * @throws CorruptRecordException when they are not valid UTF-8
   */
  public static String decode(MemorySegment bytes, long p, int n) throws CorruptRecordException {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .decode(bytes.asSlice(p, n).asByteBuffer())
          .toString();
    } catch (CharacterCodingException e) {
      throw new CorruptRecordException("a name of " + n + " bytes is not valid UTF-8");
    }
  }
}
