package io.tidestore.osd.security;

import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import javax.net.ssl.SSLSession;

/**
 * The daemon's TLS context and grants, built once at startup from {@link SecuritySettings} and
 * shared by every listener: the gateways ask it whether to speak TLS and what a connection's client
 * may do. Thread-safe (immutable).
 */
public final class ServerSecurity {
  private final SecuritySettings settings;
  private final SslContext context;
  private final AuthFile authFile;

  private ServerSecurity(SecuritySettings settings, SslContext context, AuthFile authFile) {
    this.settings = settings;
    this.context = context;
    this.authFile = authFile;
  }

  /** Loads the certificates and the auth file; fails with what is wrong with them. */
  public static ServerSecurity open(SecuritySettings settings) throws IOException {
    SslContext context =
        settings.tls() == TlsMode.OFF
            ? null
            : TlsContexts.server(
                CertificateFiles.server(settings.certificates()),
                settings.verifyPeer(),
                settings.provider().netty());
    AuthFile auth = settings.authFile() == null ? null : AuthFile.read(settings.authFile());
    return new ServerSecurity(settings, context, auth);
  }

  /** Plaintext, no grants: every client may do everything (the loopback default). */
  public static ServerSecurity plaintext() {
    return new ServerSecurity(SecuritySettings.plaintext(), null, null);
  }

  public SecuritySettings settings() {
    return settings;
  }

  public TlsMode mode() {
    return settings.tls();
  }

  /** The server TLS context; null when TLS is off. */
  public SslContext context() {
    return context;
  }

  /**
   * What the client of a connection may do: everything without an auth file, else its grants by the
   * CN of the certificate it presented in {@code session} (null: a plaintext connection, or one
   * without a certificate, which gets nothing).
   */
  public Caps caps(SSLSession session) {
    if (authFile == null) {
      return Caps.FULL;
    }
    return authFile.caps(PeerIdentity.of(session));
  }

  /** One line for the ready log: how the listeners are protected. */
  public String describe() {
    if (context == null) {
      return "tls off";
    }
    return "tls "
        + settings.tls().flag()
        + (settings.verifyPeer() ? " with client certificates" : "")
        + " ("
        + settings.provider().netty()
        + ")"
        + (authFile == null ? "" : ", " + authFile.clients() + " clients in " + authFile.path());
  }
}
