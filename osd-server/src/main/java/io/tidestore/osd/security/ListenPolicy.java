package io.tidestore.osd.security;

import java.net.InetAddress;

/**
 * The rule for leaving loopback: a daemon that binds any address other than loopback must require
 * TLS with client certificates ({@code --tls require --tls-verify-peer}), unless {@code --insecure}
 * says the operator means it. Without it, anyone on the network could read, write and remove every
 * object.
 */
public final class ListenPolicy {
  private ListenPolicy() {}

  /**
   * Null when a daemon may serve {@code listen} ({@code --listen}) and its admin HTTP ({@code
   * --admin-listen}) with {@code settings}, else the first refusal (for exit code 2).
   */
  public static String refusal(InetAddress listen, SecuritySettings settings) {
    String refusal =
        refusal("--listen", listen, settings.tls(), settings.verifyPeer(), settings.insecure());
    return refusal != null
        ? refusal
        : refusal(
            "--admin-listen",
            settings.adminListen(),
            settings.tls(),
            settings.verifyPeer(),
            settings.insecure());
  }

  /**
   * Null when the daemon may listen on {@code address} with these settings, else the refusal (for
   * exit code 2).
   */
  public static String refusal(
      String what, InetAddress address, TlsMode tls, boolean verifyPeer, boolean insecure) {
    if (address.isLoopbackAddress() || insecure || (tls == TlsMode.REQUIRE && verifyPeer)) {
      return null;
    }
    return what
        + " "
        + address.getHostAddress()
        + " is not loopback, so anyone who can reach it could read, write and remove every object:"
        + " add --tls require --tls-verify-peer --tls-certificates DIR (tidestore tls init"
        + " creates DIR), or --insecure if that is what you mean";
  }
}
