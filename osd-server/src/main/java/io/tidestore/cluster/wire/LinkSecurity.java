package io.tidestore.cluster.wire;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * How monitor links are opened and admitted: plaintext ({@link #PLAINTEXT}, which the monitor
 * allows on loopback or with {@code --insecure}), or TLS from the cluster's certificates (in {@code
 * cluster.tls}, which this package must not depend on).
 */
public interface LinkSecurity {
  ServerSocket listen(InetSocketAddress address) throws IOException;

  /**
   * The server's side of a link just accepted from {@link #listen}'s socket: the TLS handshake when
   * there is one. Runs on the link's own thread (a handshake may wait for a slow peer).
   *
   * @throws IOException when the link cannot carry frames (a failed handshake, the peer gone); the
   *     message says why, for one log line
   */
  Accepted admit(Socket accepted) throws IOException;

  Socket connect(InetSocketAddress address, int timeoutMillis) throws IOException;

  /** For the ready line: "plaintext" or the TLS settings. */
  String describe();

  /**
   * A link ready for frames.
   *
   * @param socket what frames are written to (the TLS socket over the accepted one, if any)
   * @param in what frames are read from, with any bytes {@link #admit} looked at still in it
   * @param peer the common name of the peer's certificate, or null (plaintext, or no certificate)
   * @param refusal null when the link may carry requests; else why not, which the server answers to
   *     the first request before it closes the link (a plaintext client of a TLS-only monitor)
   */
  record Accepted(Socket socket, InputStream in, String peer, String refusal) {}

  /** Plain TCP with Nagle off (frames are small and each one is a whole message). */
  LinkSecurity PLAINTEXT =
      new LinkSecurity() {
        @Override
        public ServerSocket listen(InetSocketAddress address) throws IOException {
          return bind(address);
        }

        @Override
        public Accepted admit(Socket accepted) throws IOException {
          return new Accepted(accepted, accepted.getInputStream(), null, null);
        }

        @Override
        public Socket connect(InetSocketAddress address, int timeoutMillis) throws IOException {
          return connectTcp(address, timeoutMillis);
        }

        @Override
        public String describe() {
          return "monitor links plaintext";
        }
      };

  /** A listening TCP socket on {@code address} (address reuse on, so a restart can rebind). */
  static ServerSocket bind(InetSocketAddress address) throws IOException {
    ServerSocket server = new ServerSocket();
    try {
      server.setReuseAddress(true);
      server.bind(address, 128);
      return server;
    } catch (IOException e) {
      server.close();
      throw e;
    }
  }

  /** A TCP connection to {@code address} with Nagle off. */
  static Socket connectTcp(InetSocketAddress address, int timeoutMillis) throws IOException {
    Socket socket = new Socket();
    try {
      socket.setTcpNoDelay(true);
      socket.connect(address, timeoutMillis);
      return socket;
    } catch (IOException e) {
      socket.close();
      throw e;
    }
  }
}
