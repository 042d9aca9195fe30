package io.tidestore.osd.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.tidestore.osd.classic.ClassicThreads;
import io.tidestore.osd.cpu.CpuAllocator;
import io.tidestore.osd.ops.ObjectNames;
import io.tidestore.osd.ops.ObjectOps;
import io.tidestore.osd.reactor.Reactors;
import io.tidestore.osd.reactor.Transport;
import io.tidestore.store.api.JournalFlush;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ObjectStore;
import io.tidestore.store.api.ShardStats;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.cache.PolicyConfig;
import io.tidestore.store.engine.LogStore;
import io.tidestore.store.engine.StoreFormat;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.memory.MemoryBudget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The classic engine's shards over a real store: ops called from messenger loops run on the op
 * workers under the PG lock, the commit thread seals and reaps, and every reply comes back on the
 * calling messenger; in both journal flush modes (fdatasync was refused with the classic engine
 * once). The store's owner check admits only the holder of the PG lock.
 */
class ClassicShardsTest {
  private static final int OBJECTS = 64;

  private Path dir;
  private Reactors io;
  private Reactors msgr;
  private ClassicThreads threads;

  @BeforeEach
  void setUp() throws Exception {
    // O_DIRECT needs a real file system (tmpfs refuses it).
    dir =
        Files.createTempDirectory(
            Path.of(System.getProperty("tidestore.test.dir", "/var/tmp")), "tidestore-classic-");
    int[] one = {CpuAllocator.UNPINNED};
    io = Reactors.start("io", Transport.EPOLL, one, Optional.empty());
    msgr =
        Reactors.start(
            "msgr",
            Transport.EPOLL,
            new int[] {CpuAllocator.UNPINNED, CpuAllocator.UNPINNED},
            Optional.empty());
    threads = ClassicThreads.start(2, 2, io);
  }

  @AfterEach
  void tearDown() throws Exception {
    msgr.close();
    threads.close();
    io.close();
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  private static StoreConfig config(JournalFlush flush) {
    return StoreConfig.defaults().withJournalFlush(flush);
  }

  private static byte[] pattern(int length, int seed) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = (byte) (i * 7 + seed);
    }
    return bytes;
  }

  private MountedShards mount(ObjectStore store) throws Exception {
    return MountedShards.mountClassic(
        store,
        threads,
        msgr,
        IoQueueConfig.defaults(),
        new ShardCaches(1 << 20, PolicyConfig.daemonDefault(), new MemoryBudget(64L << 20)));
  }

  @ParameterizedTest
  @EnumSource(JournalFlush.class)
  void opsFromMessengersRunOnPlacementGroupsAndReplyOnTheirMessenger(JournalFlush flush)
      throws Exception {
    StoreFormat.mkfs(dir, 4, 16L << 20, StoreFormat.defaultSegmentBytes(16L << 20));
    Set<String> replyThreads = ConcurrentHashMap.newKeySet();
    try (ObjectStore store = LogStore.open(dir, config(flush));
        MountedShards shards = mount(store)) {
      ObjectOps ops = shards.objectOps();
      List<CompletableFuture<Void>> writes = new ArrayList<>();
      for (int i = 0; i < OBJECTS; i++) {
        int n = i;
        // Called on a messenger, as the protocol handlers call them: the op hops to its PG.
        CompletableFuture<Void> written = new CompletableFuture<>();
        msgr.get(i % 2)
            .loop()
            .execute(
                () ->
                    ops.write("obj." + n, 0, Unpooled.wrappedBuffer(pattern(20_000, n)))
                        .whenComplete(
                            (v, e) -> {
                              replyThreads.add(Thread.currentThread().getName());
                              if (e != null) {
                                written.completeExceptionally(e);
                              } else {
                                written.complete(null);
                              }
                            }));
        writes.add(written);
      }
      for (CompletableFuture<Void> w : writes) {
        w.get(60, TimeUnit.SECONDS);
      }
      assertEquals(Set.of("msgr-0", "msgr-1"), replyThreads, "replies left their messenger");
      for (int i = 0; i < OBJECTS; i++) {
        ByteBuf read =
            ops.read("obj." + i, 0, 20_000).toCompletableFuture().get(30, TimeUnit.SECONDS);
        try {
          assertArrayEquals(pattern(20_000, i), ByteBufUtil.getBytes(read), "obj." + i);
        } finally {
          read.release();
        }
      }
      ShardStats[] stats = shards.admin().shardStats().get(30, TimeUnit.SECONDS);
      long records = 0;
      for (ShardStats s : stats) {
        records += s.records();
      }
      assertTrue(records > 0 && records <= OBJECTS, "journal records: " + records);

      // The store's rule in this engine: the holder of the PG lock, nobody else.
      ObjectKey key = ObjectNames.key("obj.0");
      int shard = shards.shardOf(key);
      ShardOwner owner = shards.ownerOf(shard);
      IllegalStateException refused =
          assertThrows(
              IllegalStateException.class, () -> owner.shard(shard).stat(key, (v, e) -> {}));
      assertTrue(
          refused.getMessage().contains("the holder of the lock of PG"), refused.getMessage());
      CompletableFuture<Long> size = new CompletableFuture<>();
      owner
          .executor()
          .execute(() -> owner.shard(shard).stat(key, (v, e) -> size.complete(v.size())));
      assertEquals(20_000L, size.get(30, TimeUnit.SECONDS));
    }
    // Remounted: everything acknowledged is there.
    try (ObjectStore store = LogStore.open(dir, config(flush));
        MountedShards shards = mount(store)) {
      for (int i = 0; i < OBJECTS; i += 7) {
        ByteBuf read =
            shards
                .objectOps()
                .read("obj." + i, 0, 20_000)
                .toCompletableFuture()
                .get(30, TimeUnit.SECONDS);
        try {
          assertArrayEquals(pattern(20_000, i), ByteBufUtil.getBytes(read), "obj." + i);
        } finally {
          read.release();
        }
      }
      assertInstanceOf(ClassicShard.class, shards.ownerOf(0));
    }
  }
}
