package io.tidestore.osd.security;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The certificate files of one side, in the layout nbdkit and libnbd use ({@code --tls-certificates
 * DIR}, {@code nbds://...?tls-certificates=DIR}): {@code ca-cert.pem} (the CA that signs both
 * sides), and {@code server-cert.pem}/{@code server-key.pem} for a server or {@code
 * client-cert.pem}/{@code client-key.pem} for a client. Keys are unencrypted PKCS#8 PEM.
 *
 * @param ca the CA certificate peers are verified against
 * @param certificate this side's certificate chain
 * @param key this side's private key; null for a client that has only a CA
 */
public record CertificateFiles(Path ca, Path certificate, Path key) {
  public static final String CA = "ca-cert.pem";
  public static final String SERVER_CERT = "server-cert.pem";
  public static final String SERVER_KEY = "server-key.pem";
  public static final String CLIENT_CERT = "client-cert.pem";
  public static final String CLIENT_KEY = "client-key.pem";

  /** A server's files in {@code dir}; every one must exist. */
  public static CertificateFiles server(Path dir) throws IOException {
    return new CertificateFiles(
        need(dir, CA, "--tls-certificates"),
        need(dir, SERVER_CERT, "--tls-certificates"),
        need(dir, SERVER_KEY, "--tls-certificates"));
  }

  /**
   * A client's files in {@code dir}: the CA must exist; the certificate and key are used when
   * present (a server that verifies peers requires them).
   */
  public static CertificateFiles client(Path dir) throws IOException {
    Path ca = need(dir, CA, "--tls-certificates");
    Path cert = dir.resolve(CLIENT_CERT);
    Path key = dir.resolve(CLIENT_KEY);
    boolean both = Files.isRegularFile(cert) && Files.isRegularFile(key);
    return new CertificateFiles(ca, both ? cert : null, both ? key : null);
  }

  private static Path need(Path dir, String name, String flag) throws IOException {
    Path p = dir.resolve(name);
    if (!Files.isDirectory(dir)) {
      throw new IOException(flag + " " + dir + " is not a directory");
    }
    if (!Files.isRegularFile(p) || !Files.isReadable(p)) {
      throw new IOException(
          flag
              + " "
              + dir
              + " has no readable "
              + name
              + " (expected "
              + CA
              + ", "
              + SERVER_CERT
              + " and "
              + SERVER_KEY
              + " for a server, "
              + CLIENT_CERT
              + " and "
              + CLIENT_KEY
              + " for a client; tidestore tls init creates them)");
    }
    return p;
  }
}
