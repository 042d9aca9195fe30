package io.tidestore.it;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Recorder;

/**
 * The soak's verified load: NBD connections and object-protocol connections, each on its own
 * virtual thread with a blocking socket, each writing and reading back only what it owns, with a
 * random think time between ops. Every read is checked against what that connection last had
 * acknowledged: a block or object holds exactly its newest version's bytes (or zeros, or no object,
 * before its first write). A failed op, a mismatch or a lost connection is counted and its first
 * description kept; the connection then goes on (a new one for a lost link).
 */
final class SoakLoad implements AutoCloseable {
  static final int BLOCK = 4096;
  private static final int OBJECT_BYTES = 16 * 1024;
  private static final int OBJECTS_PER_CONNECTION = 4;

  /** Latencies up to a minute, 3 significant digits; ns. */
  final Recorder latencies = new Recorder(60_000_000_000L, 3);

  final AtomicLong ops = new AtomicLong();
  final AtomicLong failures = new AtomicLong();
  private final List<String> firstFailures = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final long thinkMillis;
  private volatile boolean stopping;

  SoakLoad(long thinkMillis) {
    this.thinkMillis = thinkMillis;
  }

  /**
   * Starts {@code count} NBD connections over {@code images} (each {@code imageBytes}), every
   * connection owning an equal run of blocks of one image.
   */
  void startNbd(int port, List<String> images, long imageBytes, int count) {
    int perImage = (count + images.size() - 1) / images.size();
    long blocksEach = imageBytes / BLOCK / perImage;
    for (int c = 0; c < count; c++) {
      String image = images.get(c % images.size());
      long first = (c / images.size()) * blocksEach;
      int id = c;
      threads.add(Thread.ofVirtual().start(() -> nbd(port, image, id, first, (int) blocksEach)));
    }
  }

  /** Starts {@code count} object-protocol connections, each owning a few objects. */
  void startObjects(int port, int count) {
    for (int c = 0; c < count; c++) {
      int id = c;
      threads.add(Thread.ofVirtual().start(() -> objects(port, id)));
    }
  }

  private void nbd(int port, String image, int id, long firstBlock, int blocks) {
    SplittableRandom r = new SplittableRandom(id);
    long[] acked = new long[blocks];
    NbdWire wire = null;
    while (!stopping) {
      try {
        if (wire == null) {
          wire = NbdWire.connect(port, image);
        }
        int b = r.nextInt(blocks);
        long offset = (firstBlock + b) * BLOCK;
        long start = System.nanoTime();
        if (r.nextBoolean()) {
          long version = acked[b] + 1;
          wire.write(offset, content(id, firstBlock + b, version, BLOCK));
          acked[b] = version;
        } else {
          byte[] got = wire.read(offset, BLOCK);
          byte[] want =
              acked[b] == 0 ? new byte[BLOCK] : content(id, firstBlock + b, acked[b], BLOCK);
          if (!Arrays.equals(got, want)) {
            fail("nbd " + image + " block " + (firstBlock + b) + " is not version " + acked[b]);
          }
        }
        done(start);
        think(r);
      } catch (IOException e) {
        fail("nbd connection " + id + ": " + e);
        close(wire);
        wire = null;
      }
    }
    close(wire);
  }

  private void objects(int port, int id) {
    SplittableRandom r = new SplittableRandom(1_000_000L + id);
    long[] acked = new long[OBJECTS_PER_CONNECTION];
    ObjectWire wire = null;
    while (!stopping) {
      try {
        if (wire == null) {
          wire = ObjectWire.connect(port);
        }
        int k = r.nextInt(OBJECTS_PER_CONNECTION);
        String name = "soak-" + id + "-" + k;
        long start = System.nanoTime();
        if (r.nextBoolean()) {
          long version = acked[k] + 1;
          wire.write(name, 0, content(-1 - id, k, version, OBJECT_BYTES));
          acked[k] = version;
        } else if (acked[k] > 0) {
          byte[] got = wire.read(name, 0, OBJECT_BYTES);
          if (!Arrays.equals(got, content(-1 - id, k, acked[k], OBJECT_BYTES))) {
            fail("object " + name + " is not version " + acked[k]);
          }
        }
        done(start);
        think(r);
      } catch (IOException e) {
        fail("object connection " + id + ": " + e);
        close(wire);
        wire = null;
      }
    }
    close(wire);
  }

  private void done(long startNanos) {
    latencies.recordValue(Math.min(System.nanoTime() - startNanos, 60_000_000_000L));
    ops.incrementAndGet();
  }

  private void think(SplittableRandom r) {
    try {
      // Uniform over [0, 2 x mean]: connections drift apart instead of moving in step.
      TimeUnit.MILLISECONDS.sleep(r.nextLong(2 * thinkMillis + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stopping = true;
    }
  }

  private void fail(String what) {
    if (stopping) {
      return; // the daemon may be stopping under the last ops
    }
    failures.incrementAndGet();
    synchronized (firstFailures) {
      if (firstFailures.size() < 20) {
        firstFailures.add(what);
      }
    }
  }

  List<String> firstFailures() {
    synchronized (firstFailures) {
      return List.copyOf(firstFailures);
    }
  }

  /**
   * A version's bytes: a header naming owner, place and version, then a pattern of them, so a block
   * of another owner, place or version never matches.
   */
  static byte[] content(long owner, long place, long version, int length) {
    ByteBuffer b = ByteBuffer.allocate(length);
    long x = owner * 0x9E3779B97F4A7C15L ^ place * 0xC2B2AE3D27D4EB4FL ^ version;
    b.putLong(owner).putLong(place).putLong(version);
    while (b.remaining() >= 8) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
      b.putLong(x);
    }
    return b.array();
  }

  private static void close(AutoCloseable wire) {
    if (wire != null) {
      try {
        wire.close();
      } catch (Exception e) {
        // the connection is gone either way
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    stopping = true;
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(30));
    }
  }
}
