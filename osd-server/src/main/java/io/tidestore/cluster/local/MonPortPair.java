package io.tidestore.cluster.local;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks a free loopback port P for a monitor whose Raft port P+1 is free too, below the kernel's
 * ephemeral range.
 *
 * <p>Why below it: a port the kernel handed out for bind(0) is also where it hands out the local
 * ports of outgoing connections (on Linux, connect() prefers the parity that P+1 has). A monitor
 * restarted on its old ports then finds P+1 held by some client's connection or its TIME_WAIT, and
 * Ratis fails to start ("Failed to start NettyRpcService"). Ports below the range are never given
 * to outgoing connections.
 */
public final class MonPortPair {
  /** Above the well-known and the commonly configured service ports. */
  private static final int LOWEST = 10_000;

  private static final int FALLBACK_EPHEMERAL_LOW = 32_768;
  private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

  private MonPortPair() {}

  /** A free pair on loopback; {@code P} is returned, {@code P+1} is the Raft port. */
  public static int pick() throws IOException {
    InetAddress loopback = InetAddress.getLoopbackAddress();
    int highest = ephemeralLow() - 2;
    if (highest <= LOWEST) {
      throw new IOException(
          "the ephemeral port range starts at " + (highest + 2) + ": no room below it");
    }
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = random.nextInt(LOWEST, highest + 1);
      if (bindable(loopback, port) && bindable(loopback, port + 1)) {
        return port;
      }
    }
    throw new IOException("found no two free consecutive loopback ports below " + (highest + 2));
  }

  /**
   * Strict probe: without SO_REUSEADDR, so a port with a connection in TIME_WAIT counts as busy.
   */
  private static boolean bindable(InetAddress address, int port) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(false);
      socket.bind(new InetSocketAddress(address, port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static int ephemeralLow() {
    try {
      // readAllLines, not readString: the JDK sizes readString/readAllBytes by the file's size,
      // and /proc files report a size of zero; only a read until EOF sees all of it.
      String[] range =
          Files.readAllLines(EPHEMERAL_RANGE, StandardCharsets.US_ASCII)
              .get(0)
              .trim()
              .split("\\s+");
      return Integer.parseInt(range[0]);
    } catch (IOException | RuntimeException e) {
      return FALLBACK_EPHEMERAL_LOW;
    }
  }
}
