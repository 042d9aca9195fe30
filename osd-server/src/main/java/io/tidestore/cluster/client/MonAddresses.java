package io.tidestore.cluster.client;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/** Monitor address lists as {@code --mon} and {@code TIDESTORE_MON} give them: H:P[,H:P...]. */
public final class MonAddresses {
  /** The environment variable client commands read when {@code --mon} is not given. */
  public static final String ENV = "TIDESTORE_MON";

  /** Ceph's monitor port, used when an address names none. */
  public static final int DEFAULT_PORT = 6789;

  private MonAddresses() {}

  /** Parses {@code H:P[,H:P...]}; a missing port is 6789; IPv6 as {@code [::1]:6789}. */
  public static List<InetSocketAddress> parse(String list) {
    List<InetSocketAddress> addresses = new ArrayList<>();
    for (String item : list.split(",")) {
      String text = item.trim();
      if (!text.isEmpty()) {
        addresses.add(parseOne(text));
      }
    }
    if (addresses.isEmpty()) {
      throw new IllegalArgumentException("no monitor address in '" + list + "'");
    }
    return addresses;
  }

  /** One {@code H:P} (or {@code H}, port 6789). */
  public static InetSocketAddress parseOne(String text) {
    String host = text;
    int port = DEFAULT_PORT;
    int colon = text.lastIndexOf(':');
    boolean bracketed = text.startsWith("[");
    if (colon > 0 && (!bracketed || text.lastIndexOf(']') < colon)) {
      host = text.substring(0, colon);
      try {
        port = Integer.parseInt(text.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("'" + text + "' is not HOST:PORT");
      }
    }
    if (bracketed) {
      host = host.substring(1, host.length() - 1);
    }
    if (port < 1 || port > 65534 || host.isEmpty()) {
      throw new IllegalArgumentException("'" + text + "' is not HOST:PORT (port 1-65534)");
    }
    return new InetSocketAddress(host, port);
  }

  /** {@code host:port} as the map and the peers list write it. */
  public static String format(InetSocketAddress address) {
    String host = address.getHostString();
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + address.getPort();
  }
}
