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
          Map.of(
              Code.NOT_FOUND, Nbd.EIO,
              Code.NO_ATTRIBUTE, Nbd.EIO,
              Code.NO_SPACE, Nbd.ENOSPC,
              Code.NO_MEMORY, Nbd.ENOMEM,
              Code.INVALID, Nbd.EINVAL,
              Code.READ_ONLY, Nbd.EIO,
              Code.IO_ERROR, Nbd.EIO,
              Code.CORRUPT, Nbd.EIO,
              Code.CLOSED, Nbd.ESHUTDOWN,
              Code.UNSUPPORTED, Nbd.ENOTSUP));

  @Test
  void everyOpFailureHasItsDocumentedErrno() {
    assertEquals(Code.values().length, ERRNO.size());
    for (Code code : Code.values()) {
      assertEquals(ERRNO.get(code), Nbd.errorFor(code), code.name());
    }
  }
}
