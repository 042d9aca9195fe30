package io.tidestore.cli;

import io.tidestore.osd.security.SecuritySettings;
import io.tidestore.osd.security.TlsMode;
import io.tidestore.osd.security.TlsProvider;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The daemon's TLS and access flags, nbdkit's where it has them ({@code --tls}, {@code
 * --tls-certificates}, {@code --tls-verify-peer}). They govern every listener of an OSD or a
 * monitor, and an OSD's links to its monitors.
 */
final class TlsOptions {
  @Option(
      names = "--tls",
      paramLabel = "off|on|require",
      description =
          "TLS on every listener (an OSD's NBD through its STARTTLS, object protocol and"
              + " per-reactor ports; a monitor's protocol port; admin/metrics HTTPS) and an OSD's"
              + " links to its monitors: off, on (when the client asks), require."
              + " Default: ${DEFAULT-VALUE}.")
  String tls = "off";

  @Option(
      names = "--tls-certificates",
      paramLabel = "DIR",
      description =
          "ca-cert.pem, server-cert.pem and server-key.pem, as nbdkit reads them"
              + " (tidestore tls init creates them).")
  Path certificates;

  @Option(
      names = "--tls-verify-peer",
      description = "Require client certificates signed by the CA in --tls-certificates.")
  boolean verifyPeer;

  @Option(
      names = "--tls-provider",
      paramLabel = "auto|jdk|openssl",
      description =
          "TLS implementation of the Netty listeners: the JDK's, or BoringSSL (netty-tcnative)"
              + " where it loads; monitor links always use the JDK's. Default: ${DEFAULT-VALUE}.")
  String provider = "auto";

  @Option(
      names = "--auth-file",
      paramLabel = "FILE",
      description =
          "Grants per client certificate CN, one per line: NAME allow r|rw|* [image=NAME]"
              + " [pool=NAME]. Without it, every client of the CA may do everything.")
  Path authFile;

  @Option(
      names = "--insecure",
      description = "Allow serving a non-loopback address without --tls require --tls-verify-peer.")
  boolean insecure;

  @Option(
      names = "--admin-listen",
      paramLabel = "ADDRESS",
      description =
          "Address of the admin and metrics HTTP listener (HTTPS with client certificates"
              + " when TLS is on). Default: ${DEFAULT-VALUE}.")
  String adminListen = "127.0.0.1";

  /** The checked settings; IllegalArgumentException names the flag that is wrong. */
  SecuritySettings settings() {
    InetAddress admin;
    try {
      admin = InetAddress.getByName(adminListen);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("--admin-listen: unknown host '" + adminListen + "'");
    }
    return new SecuritySettings(
        TlsMode.parse(tls),
        certificates == null ? null : certificates.toAbsolutePath(),
        verifyPeer,
        TlsProvider.parse(provider),
        authFile == null ? null : authFile.toAbsolutePath(),
        insecure,
        admin);
  }
}
