package io.tidestore.cluster.client;

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
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import javax.net.ssl.SSLException;

/**
 * One connection to one monitor: requests are matched to replies by id (so heartbeats and a slow
 * proposal can share it); pushed maps go to {@code onMap}; every frame's epoch to {@code onEpoch}.
 * A virtual thread reads; a broken connection fails every pending request and is not reused.
 */
final class MonLink implements AutoCloseable {
  private static final AtomicLong IDS = new AtomicLong();

  private final InetSocketAddress address;
  private final Socket socket;
  private final DataOutputStream out;
  private final Map<Long, CompletableFuture<MonFrame>> pending = new ConcurrentHashMap<>();
  private final Consumer<ClusterMap> onMap;
  private final LongConsumer onEpoch;
  private volatile boolean broken;
  volatile boolean subscribed;

  private MonLink(
      InetSocketAddress address, Socket socket, Consumer<ClusterMap> onMap, LongConsumer onEpoch)
      throws IOException {
    this.address = address;
    this.socket = socket;
    this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
    this.onMap = onMap;
    this.onEpoch = onEpoch;
  }

  static MonLink open(
      InetSocketAddress address,
      LinkSecurity links,
      int connectTimeoutMillis,
      Consumer<ClusterMap> onMap,
      LongConsumer onEpoch)
      throws IOException {
    Socket socket = links.connect(address, connectTimeoutMillis);
    MonLink link = new MonLink(address, socket, onMap, onEpoch);
    Thread.ofVirtual().name("tidestore-mon-link").start(link::readLoop);
    return link;
  }

  InetSocketAddress address() {
    return address;
  }

  boolean broken() {
    return broken;
  }

  /** Sends a request; the future completes with the reply, or fails with a WireException. */
  CompletableFuture<MonFrame> send(int type, long senderEpoch, byte[] payload) {
    long id = IDS.incrementAndGet();
    CompletableFuture<MonFrame> reply = new CompletableFuture<>();
    pending.put(id, reply);
    try {
      synchronized (out) {
        new MonFrame(type, id, senderEpoch, payload).write(out);
      }
    } catch (IOException e) {
      fail(e);
    }
    return reply;
  }

  private void readLoop() {
    try (DataInputStream in =
        new DataInputStream(new BufferedInputStream(socket.getInputStream()))) {
      while (true) {
        MonFrame frame = MonFrame.read(in);
        onEpoch.accept(frame.epoch());
        if (frame.type() == MonFrame.MAP && frame.requestId() == 0) {
          onMap.accept(MapCodec.decode(frame.payload()));
          continue;
        }
        CompletableFuture<MonFrame> reply = pending.remove(frame.requestId());
        if (reply == null) {
          continue; // the request timed out and was given up
        }
        if (frame.type() == MonFrame.ERROR) {
          reply.completeExceptionally(MonMessages.error(frame));
        } else {
          reply.complete(frame);
        }
      }
    } catch (IOException e) {
      fail(e);
    }
  }

  private void fail(IOException cause) {
    broken = true;
    subscribed = false;
    WireException e =
        switch (cause) {
          case WireException w -> w;
          // The monitor refused this client's TLS session (its certificate, after the handshake in
          // TLS 1.3): every monitor would, so the request fails now instead of at its deadline.
          case SSLException tls ->
              new WireException(
                  WireException.NOT_ALLOWED,
                  "monitor " + address + " refused the TLS link: " + tls.getMessage());
          default ->
              new WireException(
                  WireException.NOT_READY, "monitor " + address + " connection lost: " + cause);
        };
    pending.values().forEach(f -> f.completeExceptionally(e));
    pending.clear();
    close();
  }

  /** Gives up waiting for one request (its reply, if it comes, is dropped). */
  void forget(CompletableFuture<MonFrame> request) {
    pending.values().remove(request);
  }

  @Override
  public void close() {
    broken = true;
    try {
      socket.close();
    } catch (IOException e) {
      // Closing is all we wanted.
    }
  }
}
