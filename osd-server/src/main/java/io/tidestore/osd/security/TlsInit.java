package io.tidestore.osd.security;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * What {@code tidestore tls init} does: in {@code DIR}, a CA (kept if one is there), a server
 * certificate in nbdkit's layout ({@code ca-cert.pem}, {@code server-cert.pem}, {@code
 * server-key.pem}; kept if present) and, for each client name, {@code DIR/clients/NAME/} in
 * libnbd's layout ({@code ca-cert.pem}, {@code client-cert.pem}, {@code client-key.pem}).
 */
public final class TlsInit {
  /** Client names: what a certificate's CN and an auth-file line can both carry unquoted. */
  private static final Pattern CLIENT_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@-]{0,63}");

  private TlsInit() {}

  /** Where {@code name}'s client files go under {@code dir}. */
  public static Path clientDir(Path dir, String name) {
    return dir.resolve("clients").resolve(name);
  }

  /**
   * Creates what is missing in {@code dir}; reports each file written to {@code notes}.
   *
   * @param sans addresses and names the server certificate is valid for
   * @param clients client names to issue certificates for (existing ones are reissued)
   * @param validity how long the leaf certificates are valid (the CA gets ten times as long)
   */
  public static void run(
      Path dir, List<String> sans, List<String> clients, Duration validity, Consumer<String> notes)
      throws IOException, GeneralSecurityException {
    for (String c : clients) {
      if (!CLIENT_NAME.matcher(c).matches()) {
        throw new IllegalArgumentException(
            "client name '"
                + c
                + "' must be 1-64 letters, digits, '.', '_', '@' or '-', starting with a letter or"
                + " digit (it becomes the certificate's CN and an --auth-file name)");
      }
    }
    Files.createDirectories(dir);
    Path caCert = dir.resolve(CertificateFiles.CA);
    Path caKey = dir.resolve(CertificateAuthority.CA_KEY);
    CertificateAuthority ca;
    if (Files.exists(caCert) && Files.exists(caKey)) {
      ca = CertificateAuthority.load(dir);
      notes.accept("using the CA in " + caCert);
    } else if (Files.exists(caCert)) {
      throw new IOException(
          caCert + " exists without " + caKey + ": cannot issue certificates with that CA");
    } else {
      ca = CertificateAuthority.create("tidestore CA", validity.multipliedBy(10));
      CertificateAuthority.writeKey(caKey, ca.key());
      CertificateAuthority.writeCertificate(caCert, ca.certificate());
      notes.accept("created the CA: " + caCert + " (its key " + caKey + ": keep it off servers)");
    }
    Path serverCert = dir.resolve(CertificateFiles.SERVER_CERT);
    if (!Files.exists(serverCert)) {
      CertificateAuthority.Issued server =
          ca.server(sans.isEmpty() ? "localhost" : sans.getFirst(), sans, Instant.now(), validity);
      CertificateAuthority.writeKey(dir.resolve(CertificateFiles.SERVER_KEY), server.key());
      CertificateAuthority.writeCertificate(serverCert, server.certificate());
      notes.accept("created the server certificate " + serverCert + " for " + sans);
    } else {
      notes.accept("kept the server certificate " + serverCert);
    }
    for (String name : clients) {
      Path cdir = clientDir(dir, name);
      Files.createDirectories(cdir);
      CertificateAuthority.Issued client = ca.client(name, Instant.now(), validity);
      CertificateAuthority.writeCertificate(cdir.resolve(CertificateFiles.CA), ca.certificate());
      CertificateAuthority.writeKey(cdir.resolve(CertificateFiles.CLIENT_KEY), client.key());
      CertificateAuthority.writeCertificate(
          cdir.resolve(CertificateFiles.CLIENT_CERT), client.certificate());
      notes.accept("created client '" + name + "': " + cdir);
    }
  }

  /** The default SANs: 127.0.0.1, localhost and this host's name. */
  public static List<String> defaultSans() {
    List<String> sans = new ArrayList<>(List.of("127.0.0.1", "localhost"));
    try {
      String host = java.net.InetAddress.getLocalHost().getHostName();
      if (!sans.contains(host)) {
        sans.add(host);
      }
    } catch (java.net.UnknownHostException e) {
      // No resolvable host name: the loopback names still let local clients connect.
    }
    return sans;
  }
}
