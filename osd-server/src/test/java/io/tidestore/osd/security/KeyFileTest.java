package io.tidestore.osd.security;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.interfaces.ECPublicKey;
import java.time.Duration;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.sec.ECPrivateKey;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.util.BigIntegers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Key files carry the EC public point: GnuTLS (libnbd, qemu) refuses a PKCS#8 EC key without it,
 * which is how the JDK encodes one.
 */
class KeyFileTest {
  @TempDir Path dir;

  @Test
  void clientAndServerKeysCarryTheirPublicPoint() throws Exception {
    TlsInit.run(dir, List.of("127.0.0.1"), List.of("c1"), Duration.ofDays(1), note -> {});
    Path client = TlsInit.clientDir(dir, "c1");
    for (Path[] pair :
        new Path[][] {
          {
            client.resolve(CertificateFiles.CLIENT_KEY),
            client.resolve(CertificateFiles.CLIENT_CERT)
          },
          {dir.resolve(CertificateFiles.SERVER_KEY), dir.resolve(CertificateFiles.SERVER_CERT)}
        }) {
      PrivateKeyInfo info;
      try (Reader r = Files.newBufferedReader(pair[0], StandardCharsets.US_ASCII);
          PEMParser p = new PEMParser(r)) {
        info = (PrivateKeyInfo) p.readObject();
      }
      ECPrivateKey key = ECPrivateKey.getInstance(info.parsePrivateKey());
      assertNotNull(key.getPublicKey(), pair[0] + " has no public point");
      ECPublicKey pub;
      try (var in = Files.newInputStream(pair[1])) {
        pub =
            (ECPublicKey)
                java.security.cert.CertificateFactory.getInstance("X.509")
                    .generateCertificate(in)
                    .getPublicKey();
      }
      byte[] point = key.getPublicKey().getBytes();
      assertEquals(65, point.length);
      assertArrayEquals(
          BigIntegers.asUnsignedByteArray(32, pub.getW().getAffineX()),
          java.util.Arrays.copyOfRange(point, 1, 33),
          "the point is the certificate's key");
    }
  }
}
