package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.tidestore.client.ClusterClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Objects a test wrote through a {@link ClusterClient} into one pool, and the bytes each must read
 * back: written in parallel, acknowledged, then read back and compared, whole.
 */
final class ClusterObjects {
  private final String pool;
  private final Map<String, byte[]> written = new LinkedHashMap<>();

  ClusterObjects(String pool) {
    this.pool = pool;
  }

  /** The names written so far, in order. */
  List<String> names() {
    return new ArrayList<>(written.keySet());
  }

  /**
   * Writes {@code count} new objects {@code prefix-i} of 4 to 64 KiB of random bytes and waits for
   * every acknowledgement.
   */
  void write(ClusterClient client, Random r, String prefix, int count) throws Exception {
    write(client, pool, r, prefix, count, 16, written);
  }

  /**
   * Writes {@code count} new objects {@code prefix-i} of {@code pool}, each of 1 to {@code blocks}
   * 4 KiB blocks of random bytes, in parallel, puts each one's bytes into {@code into}, and waits
   * for every acknowledgement.
   */
  static void write(
      ClusterClient client,
      String pool,
      Random r,
      String prefix,
      int count,
      int blocks,
      Map<String, byte[]> into)
      throws Exception {
    List<CompletableFuture<Void>> acks = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      byte[] data = new byte[4096 * (1 + r.nextInt(blocks))];
      r.nextBytes(data);
      String name = prefix + "-" + i;
      into.put(name, data);
      acks.add(client.write(pool, name, 0, Unpooled.wrappedBuffer(data)));
    }
    for (CompletableFuture<Void> ack : acks) {
      ack.get(60, TimeUnit.SECONDS);
    }
  }

  /**
   * Writes object {@code name} {@code times} times (each a new PG log entry), the last one's bytes
   * being what it must hold.
   */
  void rewrite(ClusterClient client, Random r, String name, int times) throws Exception {
    written.put(name, rewrite(client, pool, r, name, times));
  }

  /** How many of {@link #rewrite}'s writes are in flight at once. */
  private static final int IN_FLIGHT = 32;

  /**
   * Writes 4 KiB of random bytes to object {@code name} of {@code pool} {@code times} times, each a
   * new PG log entry: all but the last {@link #IN_FLIGHT} at a time (the test needs the entries,
   * not a round trip each), then the last alone, once every other was acknowledged, so that its
   * bytes are what the object holds; those bytes.
   */
  static byte[] rewrite(ClusterClient client, String pool, Random r, String name, int times)
      throws Exception {
    byte[] data = new byte[4096];
    Semaphore window = new Semaphore(IN_FLIGHT);
    List<CompletableFuture<Void>> acks = new ArrayList<>();
    for (int t = 0; t < times - 1; t++) {
      r.nextBytes(data);
      window.acquire();
      acks.add(
          client
              .write(pool, name, 0, Unpooled.wrappedBuffer(data.clone()))
              .whenComplete((v, e) -> window.release()));
    }
    for (CompletableFuture<Void> ack : acks) {
      ack.get(60, TimeUnit.SECONDS);
    }
    r.nextBytes(data);
    client.write(pool, name, 0, Unpooled.wrappedBuffer(data.clone())).get(60, TimeUnit.SECONDS);
    return data;
  }

  /** Object {@code name} was removed: nothing is expected of it any more. */
  void removed(String name) {
    written.remove(name);
  }

  /** Reads every object back through {@code client}: each holds exactly what was written. */
  void verify(ClusterClient client) throws Exception {
    for (var e : written.entrySet()) {
      ByteBuf data = client.read(pool, e.getKey(), 0, 1 << 20).get(60, TimeUnit.SECONDS);
      try {
        assertArrayEquals(e.getValue(), ByteBufUtil.getBytes(data), e.getKey());
      } finally {
        data.release();
      }
    }
  }
}
