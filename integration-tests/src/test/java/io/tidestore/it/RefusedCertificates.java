package io.tidestore.it;

import io.tidestore.osd.security.CertificateAuthority;
import io.tidestore.osd.security.TlsInit;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Client certificate directories (libnbd's layout: {@code ca-cert.pem}, {@code client-cert.pem},
 * {@code client-key.pem}) that a daemon under {@code --tls-verify-peer} with the CA of {@code pki}
 * (a {@code tidestore tls init} directory) must refuse, each trusting that daemon so that only the
 * daemon's own check refuses it. Made in-process with the code {@code tls init} runs (Bouncy
 * Castle), in a directory of its own under {@code dir}.
 */
final class RefusedCertificates {
  private RefusedCertificates() {}

  /** The CA only: no certificate to present. */
  static Path caOnly(Path pki, Path dir) throws Exception {
    Path caOnly = Files.createDirectories(dir.resolve("ca-only"));
    Files.copy(pki.resolve("ca-cert.pem"), caOnly.resolve("ca-cert.pem"));
    return caOnly;
  }

  /** A client {@code name} of another CA. */
  static Path anotherCa(Path pki, Path dir, String name) throws Exception {
    Path other = dir.resolve("other");
    TlsInit.run(other, List.of("127.0.0.1"), List.of(name), Duration.ofDays(1), l -> {});
    Path client = TlsInit.clientDir(other, name);
    Files.copy(
        pki.resolve("ca-cert.pem"),
        client.resolve("ca-cert.pem"),
        StandardCopyOption.REPLACE_EXISTING);
    return client;
  }

  /** Client {@code name} of the right CA, but valid only until nine days ago. */
  static Path expired(Path pki, Path dir, String name) throws Exception {
    Path expired = Files.createDirectories(dir.resolve("expired"));
    CertificateAuthority.Issued late =
        CertificateAuthority.load(pki)
            .client(name, Instant.now().minus(Duration.ofDays(10)), Duration.ofDays(1));
    Files.copy(pki.resolve("ca-cert.pem"), expired.resolve("ca-cert.pem"));
    CertificateAuthority.writeCertificate(expired.resolve("client-cert.pem"), late.certificate());
    CertificateAuthority.writeKey(expired.resolve("client-key.pem"), late.key());
    return expired;
  }
}
