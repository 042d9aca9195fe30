package io.tidestore.osd.security;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** Only loopback may be served without TLS and client certificates, unless --insecure. */
class ListenPolicyTest {
  @Test
  void leavingLoopbackNeedsRequiredTlsWithClientCertificatesOrInsecure() {
    InetAddress any = InetAddress.ofLiteral("0.0.0.0");
    InetAddress lo = InetAddress.getLoopbackAddress();
    assertNull(ListenPolicy.refusal("--listen", lo, TlsMode.OFF, false, false));
    assertNull(ListenPolicy.refusal("--listen", any, TlsMode.REQUIRE, true, false));
    assertNull(ListenPolicy.refusal("--listen", any, TlsMode.OFF, false, true));
    for (TlsMode mode : TlsMode.values()) {
      String refusal = ListenPolicy.refusal("--listen", any, mode, false, false);
      assertNotNull(refusal, mode.flag());
      assertTrue(
          refusal.contains("--tls require")
              && refusal.contains("--tls-verify-peer")
              && refusal.contains("--insecure"),
          refusal);
    }
    assertNotNull(ListenPolicy.refusal("--listen", any, TlsMode.ON, true, false));
  }
}
