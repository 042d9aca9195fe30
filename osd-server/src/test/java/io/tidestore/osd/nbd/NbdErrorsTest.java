package io.tidestore.osd.nbd;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tidestore.osd.ops.ObjectOpsException.Code;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NbdErrorsTest {
  /**
   * The errno NBD sends for every op failure (docs/nbd.md): NBD's own error values where one fits,
   * else EIO. A code missing here fails the test.
   */
  private static final Map<Code, Integer> ERRNO =
      new EnumMap<>(
          Map.ofEntries(
              Map.entry(Code.NOT_FOUND, Nbd.EIO),
              Map.entry(Code.NO_ATTRIBUTE, Nbd.EIO),
              Map.entry(Code.NO_SPACE, Nbd.ENOSPC),
              Map.entry(Code.NO_MEMORY, Nbd.ENOMEM),
              Map.entry(Code.INVALID, Nbd.EINVAL),
              Map.entry(Code.READ_ONLY, Nbd.EIO),
              Map.entry(Code.IO_ERROR, Nbd.EIO),
              Map.entry(Code.CORRUPT, Nbd.EIO),
              Map.entry(Code.CLOSED, Nbd.ESHUTDOWN),
              Map.entry(Code.UNSUPPORTED, Nbd.ENOTSUP),
              Map.entry(Code.TRY_AGAIN, Nbd.EIO),
              Map.entry(Code.STALE_MAP, Nbd.EIO)));

  @Test
  void everyOpFailureHasItsDocumentedErrno() {
    assertEquals(Code.values().length, ERRNO.size());
    for (Code code : Code.values()) {
      assertEquals(ERRNO.get(code), Nbd.errorFor(code), code.name());
    }
  }
}
