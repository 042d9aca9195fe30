package io.tidestore.mon;

import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.MapCodec;
import io.tidestore.cluster.wire.LinkSecurity;
import io.tidestore.cluster.wire.MonFrame;
import io.tidestore.cluster.wire.MonMessages;
import io.tidestore.cluster.wire.WireException;
import io.tidestore.osd.security.Caps;
import io.tidestore.osd.security.ServerSecurity;
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
 * The monitor protocol's server: one virtual thread per connection admits it ({@link
 * LinkSecurity#admit}: TLS when the link has it), then reads frames and answers them in order, each
 * checked against the client's caps ({@link MonAccess}); map pushes to subscribers run on virtual
 * threads of their own, so a slow subscriber delays only itself. Bad input gets an ERROR reply (or
 * the connection closed when the framing itself is broken); a failed handshake is one log line and
 * a counted failure; the server keeps serving everyone else.
 */
final class MonServer implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(MonServer.class.getName());

  private final ServerSocket listener;
  private final LinkSecurity links;
  private final ServerSecurity security;
  private final MonRequests requests;
  private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
  private final Thread acceptor;
  private volatile boolean closed;

  private MonServer(
      ServerSocket listener, LinkSecurity links, ServerSecurity security, MonRequests requests) {
    this.listener = listener;
    this.links = links;
    this.security = security;
    this.requests = requests;
    this.acceptor = Thread.ofPlatform().name("tidestore-mon-accept").unstarted(this::acceptLoop);
  }

  /**
   * @param links how links are admitted (plaintext or TLS)
   * @param security what each client may do, and the counters of what was refused
   */
  static MonServer start(
      InetSocketAddress address, LinkSecurity links, ServerSecurity security, MonRequests requests)
      throws IOException {
    MonServer server = new MonServer(links.listen(address), links, security, requests);
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

  /** One client: its admission, its requests in order, its pushes, its subscription. */
  final class Connection {
    private final Socket socket;
    private final Object sendLock = new Object();
    private DataOutputStream out; // set once admitted, before subscribed; guarded by sendLock
    private Caps caps = Caps.none(null);
    private boolean refusalLogged;
    private volatile boolean subscribed;
    private long pushedEpoch; // guarded by sendLock

    Connection(Socket socket) {
      this.socket = socket;
    }

    private void serve() {
      try (socket) {
        LinkSecurity.Accepted link = admit();
        if (link == null) {
          return;
        }
        synchronized (sendLock) {
          out = new DataOutputStream(new BufferedOutputStream(link.socket().getOutputStream()));
        }
        DataInputStream in = new DataInputStream(new BufferedInputStream(link.in()));
        if (link.refusal() != null) {
          refuse(in, link.refusal());
          return;
        }
        caps = security.caps(link.peer());
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
          MonFrame reply = answer(request);
          send(reply);
          if (request.type() == MonFrame.SUBSCRIBE && reply.type() != MonFrame.ERROR) {
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

    /** The link after its handshake; null (logged and counted) when it failed. */
    private LinkSecurity.Accepted admit() {
      try {
        return links.admit(socket);
      } catch (EOFException e) {
        // Connected and closed without a word: a port probe, not a TLS client.
        LOG.fine("monitor connection from " + socket.getRemoteSocketAddress() + ": " + e);
        return null;
      } catch (IOException e) {
        if (!closed) {
          security.counters().handshakeFailed();
          LOG.warning("monitor protocol: " + e.getMessage() + "; closing");
        }
        return null;
      }
    }

    /**
     * Answers the first request with {@code why} (NOT_ALLOWED), then the link closes: counted and
     * logged as the failed handshake it is.
     */
    private void refuse(DataInputStream in, String why) throws IOException {
      security.counters().handshakeFailed();
      LOG.warning("monitor protocol: refused " + socket.getRemoteSocketAddress() + ": " + why);
      long requestId;
      try {
        requestId = MonFrame.read(in).requestId();
      } catch (WireException e) {
        requestId = e.requestId();
      }
      send(
          new MonFrame(
              MonFrame.ERROR, requestId, 0, MonMessages.error(WireException.NOT_ALLOWED, why)));
    }

    private MonFrame answer(MonFrame request) throws InterruptedException {
      try {
        MonAccess.check(request.type(), caps, security.counters());
        MonRequests.Reply reply = requests.handle(request, this::subscribeFrom);
        return new MonFrame(
            reply.type(), request.requestId(), Math.max(epoch(), reply.epoch()), reply.payload());
      } catch (WireException e) {
        if (e.code() == WireException.NOT_ALLOWED && !refusalLogged) {
          refusalLogged = true; // once per connection: a refused client may keep asking
          LOG.warning(
              "monitor protocol: refused a request of type "
                  + request.type()
                  + " from "
                  + socket.getRemoteSocketAddress()
                  + ": "
                  + e.getMessage());
        }
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
      synchronized (sendLock) {
        pushedEpoch = Math.max(pushedEpoch, haveEpoch);
      }
    }

    /** Sends {@code map} unless this subscriber already has it or a newer one. */
    void push(ClusterMap map) {
      try {
        synchronized (sendLock) {
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
      synchronized (sendLock) {
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
