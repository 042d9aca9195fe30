package io.tidestore.mon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.cluster.wire.MonFrame;
import io.tidestore.cluster.wire.WireException;
import io.tidestore.osd.security.AuthFile;
import io.tidestore.osd.security.Caps;
import io.tidestore.osd.security.Refusal;
import io.tidestore.osd.security.SecurityCounters;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which monitor requests each cap allows: {@code r} reads the map and the status, only an
 * unrestricted {@code *} changes the map, a client the auth file does not name does nothing, and
 * without an auth file everyone does everything. Every refusal is counted.
 */
class MonAccessTest {
  private static final int[] READS = {
    MonFrame.GET_MAP, MonFrame.SUBSCRIBE, MonFrame.MON_STATUS, MonFrame.PG_STATS
  };
  private static final int[] CHANGES = {
    MonFrame.BOOT, MonFrame.HEARTBEAT, MonFrame.POOL_CREATE, MonFrame.POOL_REMOVE
  };

  @TempDir Path dir;

  private final SecurityCounters counters = new SecurityCounters();

  private AuthFile auth() throws Exception {
    Path file = dir.resolve("auth");
    Files.writeString(file, "admin allow *\nro allow r\nrbd-admin allow * pool=rbd\n");
    return AuthFile.read(file);
  }

  @Test
  void capsDecideWhatEachClientMayAsk() throws Exception {
    AuthFile auth = auth();
    for (int type : concat(READS, CHANGES)) {
      MonAccess.check(type, Caps.FULL, counters);
      MonAccess.check(type, auth.caps("admin"), counters);
      refused(type, auth.caps("nobody"), "has no grant for client 'nobody'");
      refused(type, auth.caps(null), "presented none");
    }
    for (int type : READS) {
      MonAccess.check(type, auth.caps("ro"), counters);
    }
    for (int type : CHANGES) {
      refused(type, auth.caps("ro"), "client 'ro' needs '*'");
      refused(type, auth.caps("rbd-admin"), "needs '*'"); // narrowed to a pool: not the map's
    }
    assertEquals(8 + 8 + 4 + 4, refusedCount());
    MonAccess.check(99, Caps.none(null), counters); // unknown: MonRequests answers BAD_REQUEST
  }

  private void refused(int type, Caps caps, String why) {
    WireException e =
        assertThrows(WireException.class, () -> MonAccess.check(type, caps, counters));
    assertEquals(WireException.NOT_ALLOWED, e.code());
    assertTrue(e.getMessage().contains(why), e.getMessage());
  }

  private long refusedCount() {
    long sum = 0;
    for (Refusal r : Refusal.values()) {
      sum += counters.refusedFor(r);
    }
    return sum;
  }

  private static int[] concat(int[] a, int[] b) {
    int[] all = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }
}
