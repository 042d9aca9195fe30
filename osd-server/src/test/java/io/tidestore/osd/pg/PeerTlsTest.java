package io.tidestore.osd.pg;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.OpenSslContext;
import io.netty.handler.ssl.SslContext;
import io.tidestore.osd.security.SecuritySettings;
import io.tidestore.osd.security.TlsInit;
import io.tidestore.osd.security.TlsMode;
import io.tidestore.osd.security.TlsProvider;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An OSD's links to its peers take the TLS provider of its listeners ({@code --tls-provider}). */
class PeerTlsTest {
  @TempDir Path dir;

  private SecuritySettings settings(TlsProvider provider) {
    return new SecuritySettings(
        TlsMode.REQUIRE, dir, true, provider, null, false, InetAddress.getLoopbackAddress());
  }

  @Test
  void peerLinksFollowTheListenersProvider() throws Exception {
    TlsInit.run(dir, List.of("127.0.0.1"), List.of(), Duration.ofDays(1), note -> {});
    assertNull(PeerTls.context(SecuritySettings.plaintext()));
    SslContext jdk = PeerTls.context(settings(TlsProvider.JDK));
    assertInstanceOf(JdkSslContext.class, jdk);
    assertTrue(jdk.isClient());
    // netty-tcnative-boringssl-static ships for linux-x86_64, where the suite runs.
    SslContext boring = PeerTls.context(settings(TlsProvider.OPENSSL));
    assertInstanceOf(OpenSslContext.class, boring);
    assertTrue(boring.isClient());
  }
}
