package io.tidestore.osd.security;

import java.net.InetAddress;
import java.nio.file.Path;

/**
 * The daemon's TLS and access settings, checked.
 *
 * @param tls whether every listener speaks TLS (off, on when asked, require)
 * @param certificates the server's {@link CertificateFiles} directory; null when {@code tls} is off
 * @param verifyPeer whether clients must present a certificate signed by the CA
 * @param provider which TLS implementation
 * @param authFile the grants per client name; null: every client may do everything
 * @param insecure the operator accepts serving a non-loopback address without client certificates
 * @param adminListen the address of the admin and metrics HTTP listener
 */
public record SecuritySettings(
    TlsMode tls,
    Path certificates,
    boolean verifyPeer,
    TlsProvider provider,
    Path authFile,
    boolean insecure,
    InetAddress adminListen) {

  public SecuritySettings {
    if (tls != TlsMode.OFF && certificates == null) {
      throw new IllegalArgumentException(
          "--tls " + tls.flag() + " needs --tls-certificates DIR (tidestore tls init makes one)");
    }
    if (tls == TlsMode.OFF && verifyPeer) {
      throw new IllegalArgumentException("--tls-verify-peer needs --tls on or --tls require");
    }
    if (tls == TlsMode.OFF && authFile != null) {
      throw new IllegalArgumentException(
          "--auth-file names clients by their certificates: it needs --tls on or --tls require");
    }
  }

  /** Today's embedded default: plaintext, everyone may do everything, admin on loopback. */
  public static SecuritySettings plaintext() {
    return new SecuritySettings(
        TlsMode.OFF, null, false, TlsProvider.AUTO, null, false, InetAddress.getLoopbackAddress());
  }
}
