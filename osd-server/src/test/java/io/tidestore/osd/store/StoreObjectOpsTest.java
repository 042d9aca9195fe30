package io.tidestore.osd.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.tidestore.client.ShardAwareClient;
import io.tidestore.osd.ops.NamePage;
import io.tidestore.osd.ops.ObjectOps;
import io.tidestore.osd.protocol.ObjectProtocolServer;
import io.tidestore.osd.protocol.OpException;
import io.tidestore.osd.protocol.ServerLimits;
import io.tidestore.osd.protocol.Status;
import io.tidestore.osd.reactor.Reactors;
import io.tidestore.osd.reactor.Transport;
import io.tidestore.store.api.CleanerPolicy;
import io.tidestore.store.api.JournalFlush;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.engine.StoreFormat;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The object protocol end to end over the real store: 4 shards on 2 pinned-or-not reactors, a
 * shard-aware client, durable writes through the journal, and the data back after a remount.
 */
class StoreObjectOpsTest {
  @TempDir Path dir;

  private static <T> T await(CompletableFuture<T> f) throws Exception {
    return f.get(30, TimeUnit.SECONDS);
  }

  private static StoreConfig config() {
    return new StoreConfig(
        64 << 10,
        64,
        1_000_000L,
        4,
        512 << 10,
        CleanerPolicy.GREEDY,
        6,
        2,
        JournalFlush.SHARED_FDATASYNC,
        StoreConfig.DEFAULT_OVERPROVISION_PERCENT);
  }

  private interface Body {
    void run(ShardAwareClient client) throws Exception;
  }

  private void withServer(Body body) throws Exception {
    try (StoreOnReactors served = StoreOnReactors.open(dir, config())) {
      Reactors reactors = served.reactors();
      ObjectOps ops = served.ops();
      try (ObjectProtocolServer server =
              ObjectProtocolServer.start(
                  reactors, InetAddress.getLoopbackAddress(), 0, ops, ServerLimits.DEFAULT);
          ShardAwareClient client =
              await(
                  ShardAwareClient.connect(
                      reactors.group(), Transport.EPOLL.socketChannel(), server.address()))) {
        body.run(client);
      }
    }
  }

  private static byte[] pattern(int length, int seed) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = (byte) (i * 7 + seed);
    }
    return bytes;
  }

  @Test
  void objectOpsRoundTripAndSurviveARemount() throws Exception {
    StoreFormat.mkfs(dir, 4, (4L << 20) + 8192, 128 << 10);
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      names.add("obj." + i);
    }
    withServer(
        client -> {
          assertEquals(4, client.shardMap().shards());
          List<CompletableFuture<Void>> writes = new ArrayList<>();
          for (int i = 0; i < names.size(); i++) {
            writes.add(client.write(names.get(i), 0, Unpooled.wrappedBuffer(pattern(10_000, i))));
          }
          for (CompletableFuture<Void> w : writes) {
            await(w);
          }
          ByteBuf read = await(client.read("obj.3", 100, 500));
          try {
            byte[] expected = new byte[500];
            System.arraycopy(pattern(10_000, 3), 100, expected, 0, 500);
            assertArrayEquals(expected, ByteBufUtil.getBytes(read));
          } finally {
            read.release();
          }
          assertEquals(10_000, await(client.stat("obj.5")).size());
          await(client.truncate("obj.5", 10));
          assertEquals(10, await(client.stat("obj.5")).size());
          await(client.setXattr("obj.1", "user.k", Unpooled.wrappedBuffer(new byte[] {4, 2})));
          ByteBuf value = await(client.getXattr("obj.1", "user.k"));
          assertArrayEquals(new byte[] {4, 2}, ByteBufUtil.getBytes(value));
          value.release();
          await(client.removeXattr("obj.1", "user.k"));
          await(client.remove("obj.0"));
          var missing = assertThrows(ExecutionException.class, () -> await(client.stat("obj.0")));
          assertEquals(
              Status.ENOENT, assertInstanceOf(OpException.class, missing.getCause()).status());

          Set<String> listed = new HashSet<>();
          for (int shard = 0; shard < 4; shard++) {
            String after = "";
            while (true) {
              NamePage page = await(client.list(shard, after, 3));
              listed.addAll(page.names());
              if (!page.more()) {
                break;
              }
              after = page.names().getLast();
            }
          }
          Set<String> expected = new HashSet<>(names);
          expected.remove("obj.0");
          assertEquals(expected, listed);
        });
    // Remount: acknowledged writes are durable.
    withServer(
        client -> {
          ByteBuf read = await(client.read("obj.15", 0, 10_000));
          try {
            assertArrayEquals(pattern(10_000, 15), ByteBufUtil.getBytes(read));
          } finally {
            read.release();
          }
          assertEquals(10, await(client.stat("obj.5")).size());
          assertFalse(
              assertThrows(ExecutionException.class, () -> await(client.stat("obj.0")))
                  .getCause()
                  .getMessage()
                  .isEmpty());
          assertTrue(client.shardMap().shards() == 4);
        });
  }
}
