package io.tidestore.osd.security;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.OptionalSslHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.util.Locale;
import javax.net.ssl.SSLSession;

/**
 * The daemon's TLS context and grants, built once at startup from {@link SecuritySettings} and
 * shared by every listener: the gateways ask it to protect a new connection ({@link #protect}) and
 * what the connection's client may do ({@link #caps}); it counts what they refuse ({@link
 * #counters}). Thread-safe (immutable but for the counters).
 */
public final class ServerSecurity {
  /** The standalone daemon's one pool, which grants narrowed with {@code pool=} name. */
  public static final String STANDALONE_POOL = "rbd";

  private final SecuritySettings settings;
  private final SslContext context;
  private final SslProvider provider;
  private final AuthFile authFile;
  private final SecurityCounters counters = new SecurityCounters();

  private ServerSecurity(
      SecuritySettings settings, SslContext context, SslProvider provider, AuthFile authFile) {
    this.settings = settings;
    this.context = context;
    this.provider = provider;
    this.authFile = authFile;
  }

  /** Loads the certificates and the auth file; fails with what is wrong with them. */
  public static ServerSecurity open(SecuritySettings settings) throws IOException {
    SslContext context = null;
    SslProvider provider = null;
    if (settings.tls() != TlsMode.OFF) {
      try {
        provider = settings.provider().netty();
      } catch (IllegalStateException e) {
        throw new IOException(e.getMessage(), e);
      }
      context =
          TlsContexts.server(
              CertificateFiles.server(settings.certificates()), settings.verifyPeer(), provider);
    }
    AuthFile auth = settings.authFile() == null ? null : AuthFile.read(settings.authFile());
    return new ServerSecurity(settings, context, provider, auth);
  }

  /** Plaintext, no grants: every client may do everything (the loopback default). */
  public static ServerSecurity plaintext() {
    return new ServerSecurity(SecuritySettings.plaintext(), null, null, null);
  }

  public SecuritySettings settings() {
    return settings;
  }

  /** TLS on the object protocol's ports (and NBD's STARTTLS). */
  public TlsMode mode() {
    return settings.tls();
  }

  /**
   * TLS on the admin and metrics HTTP listener: as {@link #mode()}, except that {@code on} becomes
   * {@code require} off loopback (HTTPS only: a scraper beyond this host needs a certificate).
   */
  public TlsMode adminMode() {
    TlsMode tls = settings.tls();
    return tls == TlsMode.ON && !settings.adminListen().isLoopbackAddress() ? TlsMode.REQUIRE : tls;
  }

  /** The server TLS context; null when TLS is off. */
  public SslContext context() {
    return context;
  }

  /** What the listeners refused, for the metrics. */
  public SecurityCounters counters() {
    return counters;
  }

  /**
   * Puts TLS in front of a new connection's pipeline, before anything else: {@code require} a TLS
   * handler, {@code on} one that becomes a TLS handler when the client's first bytes are a TLS
   * record and steps aside otherwise, {@code off} nothing. A failed handshake is counted, logged in
   * one line naming {@code listener}, and closes the connection.
   */
  public void protect(Channel channel, TlsMode tls, String listener) {
    if (tls == TlsMode.OFF || context == null) {
      return;
    }
    channel
        .pipeline()
        .addFirst(
            "tls",
            tls == TlsMode.REQUIRE
                ? context.newHandler(channel.alloc())
                : new OptionalSslHandler(context))
        .addAfter("tls", "tls-watch", new HandshakeWatch(listener, counters));
  }

  /**
   * Puts TLS in front of {@code ctx}'s handler on a connection that has been talking in clear (NBD
   * after its STARTTLS was acknowledged): as {@link #protect}, a failed handshake is counted,
   * logged in one line naming {@code listener}, and closes the connection. TLS must be configured.
   */
  public void startTls(ChannelHandlerContext ctx, String listener) {
    ctx.pipeline()
        .addBefore(ctx.name(), "tls", context.newHandler(ctx.alloc()))
        .addBefore(ctx.name(), "tls-watch", new HandshakeWatch(listener, counters));
  }

  /**
   * What the client of a connection may do: everything without an auth file, else its grants by the
   * CN of the certificate it presented in {@code session} (null: a plaintext connection, or one
   * without a certificate, which gets nothing).
   */
  public Caps caps(SSLSession session) {
    return caps(PeerIdentity.of(session));
  }

  /**
   * {@link #caps(SSLSession)} for a connection whose peer's certificate CN is already known ({@code
   * identity}; null: no certificate), as the monitor's links know it after their handshake.
   */
  public Caps caps(String identity) {
    return authFile == null ? Caps.full(identity) : authFile.caps(identity);
  }

  /** {@link #caps(SSLSession)} of {@code channel}'s TLS session, once its handshake is done. */
  public Caps caps(Channel channel) {
    SslHandler tls = channel.pipeline().get(SslHandler.class);
    return caps(tls == null ? null : tls.engine().getSession());
  }

  /** One line for the ready log: how the listeners are protected. */
  public String describe() {
    if (context == null) {
      return "security: plaintext on every listener, every client may do everything";
    }
    return "security: object protocol "
        + words(mode(), "TLS only", "TLS when the client starts it")
        + ", admin/metrics "
        + words(adminMode(), "HTTPS only", "HTTP or HTTPS")
        + ", client certificates "
        + (settings.verifyPeer() ? "required" : "optional")
        + ", TLS 1.3 by "
        + providerName()
        + (authFile == null
            ? ", every client of the CA may do everything"
            : ", grants for " + authFile.clients() + " clients from " + authFile.path());
  }

  /** The same as JSON, for {@code /status}. */
  public String statusJson() {
    StringBuilder json =
        new StringBuilder("{\"tls\":\"")
            .append(mode().flag())
            .append("\",\"admin_tls\":\"")
            .append(adminMode().flag())
            .append("\",\"verify_peer\":")
            .append(settings.verifyPeer())
            .append(",\"provider\":")
            .append(context == null ? "null" : "\"" + providerName() + "\"")
            .append(",\"auth_file\":");
    if (authFile == null) {
      json.append("null");
    } else {
      json.append('"')
          .append(authFile.path().toString().replace("\\", "\\\\").replace("\"", "\\\""))
          .append("\",\"clients\":")
          .append(authFile.clients());
    }
    return json.append('}').toString();
  }

  private String providerName() {
    return provider == SslProvider.JDK ? "jdk" : provider.name().toLowerCase(Locale.ROOT);
  }

  private static String words(TlsMode tls, String require, String on) {
    return switch (tls) {
      case OFF -> "plaintext";
      case ON -> on;
      case REQUIRE -> require;
    };
  }
}
