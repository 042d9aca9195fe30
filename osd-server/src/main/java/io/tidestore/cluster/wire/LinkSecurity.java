package io.tidestore.cluster.wire;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * How monitor links are opened: the seam where TLS will go once {@code osd.security} has the
 * cluster's certificates (an implementation that wraps these sockets in SSLSockets). This stop has
 * plaintext only, which the monitor allows on loopback or with {@code --insecure}.
 */
public interface LinkSecurity {
  ServerSocket listen(InetSocketAddress address) throws IOException;

  Socket connect(InetSocketAddress address, int timeoutMillis) throws IOException;

  /** For the ready line: "plaintext" or the TLS settings. */
  String describe();

  /** Plain TCP with Nagle off (frames are small and each one is a whole message). */
  LinkSecurity PLAINTEXT =
      new LinkSecurity() {
        @Override
        public ServerSocket listen(InetSocketAddress address) throws IOException {
          ServerSocket server = new ServerSocket();
          server.setReuseAddress(true);
          server.bind(address, 128);
          return server;
        }

        @Override
        public Socket connect(InetSocketAddress address, int timeoutMillis) throws IOException {
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

        @Override
        public String describe() {
          return "plaintext (monitor links get TLS with the security work)";
        }
      };
}
