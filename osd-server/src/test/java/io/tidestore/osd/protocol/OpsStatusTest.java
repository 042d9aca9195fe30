package io.tidestore.osd.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.ops.ObjectOpsException.Code;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OpsStatusTest {
  /** The reply status of every op failure (docs/protocol.md); a code missing here fails. */
  private static final Map<Code, Integer> STATUS =
      new EnumMap<>(
          Map.ofEntries(
              Map.entry(Code.NOT_FOUND, Status.ENOENT),
              Map.entry(Code.NO_ATTRIBUTE, Status.ENODATA),
              Map.entry(Code.NO_SPACE, Status.ENOSPC),
              Map.entry(Code.NO_MEMORY, Status.ENOMEM),
              Map.entry(Code.INVALID, Status.EINVAL),
              Map.entry(Code.READ_ONLY, Status.EROFS),
              Map.entry(Code.IO_ERROR, Status.EIO),
              Map.entry(Code.CORRUPT, Status.EIO),
              Map.entry(Code.CLOSED, Status.ESHUTDOWN),
              Map.entry(Code.UNSUPPORTED, Status.EOPNOTSUPP),
              Map.entry(Code.TRY_AGAIN, Status.EAGAIN),
              Map.entry(Code.STALE_MAP, Status.ESTALE)));

  @Test
  void everyOpFailureHasItsDocumentedStatus() {
    assertEquals(Code.values().length, STATUS.size());
    for (Code code : Code.values()) {
      assertEquals(STATUS.get(code), OpsStatus.of(code), code.name());
    }
  }

  @Test
  void statusesReadBackAsTheCodeTheyNameAndCorruptAsAnIoError() {
    for (Code code : Code.values()) {
      Code back = OpsStatus.codeOf(OpsStatus.of(code));
      assertEquals(code == Code.CORRUPT ? Code.IO_ERROR : code, back, code.name());
    }
  }

  @Test
  void theProtocolsOwnStatusesNameNoOpFailure() {
    for (int status :
        new int[] {
          Status.OK,
          Status.EEXIST,
          Status.EFBIG,
          Status.ENAMETOOLONG,
          Status.EPROTO,
          Status.EBADMSG,
          Status.EMSGSIZE
        }) {
      assertNull(OpsStatus.codeOf(status), Status.name(status));
    }
  }

  @Test
  void theReplyMessageNamesTheStatusThenTheOp() {
    ObjectOpsException e = new ObjectOpsException(Code.NOT_FOUND, "NOT_FOUND: no object x");
    assertEquals("ENOENT: NOT_FOUND: no object x", OpsStatus.message(Status.ENOENT, e));
  }
}
