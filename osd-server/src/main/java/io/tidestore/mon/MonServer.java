package io.tidestore.mon;

import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.MapCodec;
import io.tidestore.cluster.wire.LinkSecurity;
import io.tidestore.cluster.wire.MonFrame;
import io.tidestore.cluster.wire.MonMessages;
import io.tidestore.cluster.wire.WireException;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The monitor protocol's server: one virtual thread per connection reads frames and answers them in
 * order; map pushes to subscribers run on virtual threads of their own, so a slow subscriber delays
 * only itself. Bad input gets an ERROR reply (or the connection closed when the framing itself is
 * broken); the server keeps serving everyone else.
 */
final class MonServer implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(MonServer.class.getName());

  private final ServerSocket listener;
  private final MonRequests requests;
  private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
  private final Thread acceptor;
  private volatile boolean closed;

  private MonServer(ServerSocket listener, MonRequests requests) {
    this.listener = listener;
    this.requests = requests;
    this.acceptor = Thread.ofPlatform().name("tidestore-mon-accept").unstarted(this::acceptLoop);
  }

  static MonServer start(InetSocketAddress address, LinkSecurity links, MonRequests requests)
      throws IOException {
    MonServer server = new MonServer(links.listen(address), requests);
    server.acceptor.start();
    return server;
  }

  InetSocketAddress address() {
    return (InetSocketAddress) listener.getLocalSocketAddress();
  }

  /** Pushes {@code map} to every subscriber that has an older one. */
  void publish(ClusterMap map) {
    for (Connection c : connections) {
      if (c.subscribed) {
        Thread.ofVirtual().start(() -> c.push(map));
      }
    }
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket socket = listener.accept();
        socket.setTcpNoDelay(true);
        Connection c = new Connection(socket);
        connections.add(c);
        Thread.ofVirtual().name("tidestore-mon-conn").start(c::serve);
      } catch (IOException e) {
        if (!closed) {
          LOG.log(Level.WARNING, "accept failed", e);
        }
      }
    }
  }

  /** One client: its requests in order, its pushes, its subscription. */
  final class Connection {
    private final Socket socket;
    private final DataOutputStream out;
    private volatile boolean subscribed;
    private long pushedEpoch; // guarded by out

    Connection(Socket socket) throws IOException {
      this.socket = socket;
      this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
    }

    private void serve() {
      try (socket;
          DataInputStream in =
              new DataInputStream(new BufferedInputStream(socket.getInputStream()))) {
        while (!closed) {
          MonFrame request;
          try {
            request = MonFrame.read(in);
          } catch (WireException e) {
            send(new MonFrame(MonFrame.ERROR, e.requestId(), epoch(), error(e)));
            if (e.code() == WireException.VERSION) {
              continue; // read whole, of another version: said so, the stream is still in step
            }
            return; // a bad length: the stream is out of step, so the connection ends here
          }
          send(answer(request));
          if (request.type() == MonFrame.SUBSCRIBE) {
            subscribed = true;
            push(requests.localMap());
          }
        }
      } catch (EOFException | SocketException e) {
        // The client went away.
      } catch (IOException e) {
        LOG.fine("monitor connection from " + socket.getRemoteSocketAddress() + ": " + e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        connections.remove(this);
      }
    }

    private MonFrame answer(MonFrame request) throws InterruptedException {
      try {
        MonRequests.Reply reply = requests.handle(request, this::subscribeFrom);
        return new MonFrame(
            reply.type(), request.requestId(), Math.max(epoch(), reply.epoch()), reply.payload());
      } catch (WireException e) {
        return new MonFrame(MonFrame.ERROR, request.requestId(), epoch(), error(e));
      } catch (IOException e) {
        return new MonFrame(
            MonFrame.ERROR,
            request.requestId(),
            epoch(),
            MonMessages.error(WireException.BAD_REQUEST, "unreadable request: " + e.getMessage()));
      }
    }

    private void subscribeFrom(long haveEpoch) {
      synchronized (out) {
        pushedEpoch = Math.max(pushedEpoch, haveEpoch);
      }
    }

    /** Sends {@code map} unless this subscriber already has it or a newer one. */
    void push(ClusterMap map) {
      try {
        synchronized (out) {
          if (!map.initialized() || map.epoch() <= pushedEpoch) {
            return;
          }
          pushedEpoch = map.epoch();
          new MonFrame(MonFrame.MAP, 0, map.epoch(), MapCodec.encode(map)).write(out);
        }
      } catch (IOException e) {
        close();
      }
    }

    private void send(MonFrame frame) throws IOException {
      synchronized (out) {
        frame.write(out);
      }
    }

    private void close() {
      try {
        socket.close();
      } catch (IOException e) {
        // Closing is all we wanted.
      }
    }
  }

  private long epoch() {
    return requests.localMap().epoch();
  }

  private static byte[] error(WireException e) {
    return MonMessages.error(e.code(), e.getMessage());
  }

  @Override
  public void close() throws IOException {
    closed = true;
    listener.close();
    for (Connection c : connections) {
      c.close();
    }
  }
}
