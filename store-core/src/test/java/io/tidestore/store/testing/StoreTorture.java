package io.tidestore.store.testing;

import io.tidestore.store.api.ExtentCacheHook;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ObjectStore;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.engine.LogStore;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.io.backend.IoQueues;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

/**
 * The crash test's child process, a test fixture (shipped in store-core's test-jar, never in the
 * daemon's jar): {@code java -cp tidestore.jar:store-core-tests.jar
 * io.tidestore.store.testing.StoreTorture --data DIR [--in-flight N]}. It mounts every shard of a
 * store, reports the version of every block it finds ({@code STATE obj block version}, or {@code
 * CORRUPT} for a block that is not exactly what some write put there), prints {@code READY}, then
 * writes random runs of blocks forever, printing {@code ACK obj block count version} once each
 * write is acknowledged. A block of version v holds (obj, block, v) and bytes derived from them.
 */
public final class StoreTorture {
  static final int OBJECTS = 8;
  static final int BLOCKS = 64;
  private static final ValueLayout.OfLong LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private final Path data;
  private final int inFlight;

  private int pending;

  static void fill(MemorySegment block, int obj, int b, long version) {
    block.set(LONG, 0, obj);
    block.set(LONG, 8, b);
    block.set(LONG, 16, version);
    long x = version * 0x9E3779B97F4A7C15L + obj * 31L + b;
    for (long i = 24; i + 8 <= 4096; i += 8) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
      block.set(LONG, i, x);
    }
  }

  private StoreTorture(Path data, int inFlight) {
    this.data = data;
    this.inFlight = inFlight;
  }

  public static void main(String[] args) throws Exception {
    List<String> a = List.of(args);
    int d = a.indexOf("--data");
    int f = a.indexOf("--in-flight");
    if (d < 0 || d + 1 >= a.size() || (f >= 0 && f + 1 >= a.size())) {
      System.err.println("usage: StoreTorture --data DIR [--in-flight N]");
      System.exit(2);
    }
    new StoreTorture(Path.of(a.get(d + 1)), f < 0 ? 16 : Integer.parseInt(a.get(f + 1))).run();
  }

  private void run() throws Exception {
    PrintStream out = System.out;
    try (ObjectStore store = LogStore.open(data, StoreConfig.defaults());
        IoQueue queue = IoQueues.create(IoQueueConfig.defaults());
        Arena arena = Arena.ofConfined()) {
      ShardStore[] shards = new ShardStore[store.shardCount()];
      for (int s = 0; s < shards.length; s++) {
        shards[s] = store.mountShard(s, queue, ExtentCacheHook.NONE);
      }
      MemorySegment buf = arena.allocate(BLOCKS * 4096L, 4096);
      MemorySegment expect = arena.allocate(4096);
      for (int o = 0; o < OBJECTS; o++) {
        ObjectKey key = new ObjectKey(1, "t-" + o);
        ShardStore s = shards[store.shardOf(key)];
        int[] n = {-2};
        StoreException[] err = {null};
        s.read(
            key,
            0,
            buf,
            (v, e) -> {
              n[0] = v == null ? -1 : v;
              err[0] = e;
            });
        while (n[0] == -2) {
          s.endOfPass();
          queue.await(1_000_000);
        }
        if (err[0] != null && err[0].code() != StoreException.Code.NOT_FOUND) {
          throw err[0];
        }
        for (int b = 0; b < BLOCKS; b++) {
          long version = 0;
          if ((long) (b + 1) * 4096 <= n[0]) {
            MemorySegment block = buf.asSlice(b * 4096L, 4096);
            version = block.get(LONG, 16);
            if (version != 0) {
              fill(expect, o, b, version);
              if (block.mismatch(expect) >= 0) {
                out.println("CORRUPT " + o + " " + b);
              }
            } else if (block.asSlice(0, 4096).mismatch(arena.allocate(4096)) >= 0) {
              out.println("CORRUPT " + o + " " + b);
            }
          }
          out.println("STATE " + o + " " + b + " " + version);
        }
      }
      out.println("READY");
      out.flush();
      Random r = new Random();
      long version = System.currentTimeMillis() * 1000;
      while (true) {
        while (pending < inFlight) {
          int o = r.nextInt(OBJECTS);
          int b = r.nextInt(BLOCKS);
          int count = 1 + r.nextInt(Math.min(4, BLOCKS - b));
          long v = ++version;
          byte[] bytes = new byte[count * 4096];
          MemorySegment seg = MemorySegment.ofArray(bytes);
          for (int i = 0; i < count; i++) {
            fill(seg.asSlice(i * 4096L, 4096), o, b + i, v);
          }
          ObjectKey key = new ObjectKey(1, "t-" + o);
          pending++;
          shards[store.shardOf(key)].write(
              key,
              b * 4096L,
              seg,
              (x, e) -> {
                pending--;
                if (e != null) {
                  out.println("ERROR " + e.getMessage());
                } else {
                  out.println("ACK " + o + " " + b + " " + count + " " + v);
                }
                out.flush();
              });
        }
        for (ShardStore s : shards) {
          s.endOfPass();
        }
        queue.await(1_000_000);
      }
    }
  }
}
