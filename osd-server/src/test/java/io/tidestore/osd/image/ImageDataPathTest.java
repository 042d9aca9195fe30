package io.tidestore.osd.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tidestore.osd.image.BlockImage.Zeroing;
import io.tidestore.osd.reactor.Reactors;
import io.tidestore.osd.store.StoreOnReactors;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.engine.StoreFormat;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image data path over a real store on two real reactors (so half the objects are reached
 * through a hop to the other reactor): reads land at the reply buffer's writer index, and since the
 * path no longer pre-zeroes that buffer, holes, objects shorter than the piece and reads past an
 * object's end must come back as zeros over whatever the buffer held.
 */
class ImageDataPathTest {
  private static final int MIB = 1 << 20;
  private static final int HEADER = 16;
  private static final byte STALE = (byte) 0xee;

  @TempDir Path dir;

  @Test
  void readsZeroHolesAndShortObjectsAndLeaveTheHeaderAlone() throws Exception {
    try (StoreOnReactors served = openStore(dir)) {
      Reactors reactors = served.reactors();
      BlockImage image = image(served, "dp", 16L * MIB);
      // Straddles objects 0 and 1: object 1 ends 4 KiB in.
      write(reactors, image, 4L * MIB - 4096, filled(8192, (byte) 0x11));
      // Object 2 holds 110 bytes.
      write(reactors, image, 8L * MIB + 10, filled(100, (byte) 0x22));

      byte[] straddle = read(reactors, image, 4L * MIB - 4096, 16384);
      assertRange(straddle, 0, 8192, (byte) 0x11);
      assertRange(straddle, 8192, 16384, (byte) 0); // past object 1's end

      byte[] small = read(reactors, image, 8L * MIB, 4096);
      assertRange(small, 0, 10, (byte) 0);
      assertRange(small, 10, 110, (byte) 0x22);
      assertRange(small, 110, 4096, (byte) 0);

      byte[] pastEnd = read(reactors, image, 8L * MIB + 65536, 65536); // object 2, past its end
      assertRange(pastEnd, 0, 65536, (byte) 0);

      byte[] hole = read(reactors, image, 12L * MIB + 4096, 8192); // object 3, never written
      assertRange(hole, 0, 8192, (byte) 0);
    }
  }

  /**
   * 64 MiB shards get 1 MiB segments, so the store takes at most 1 MiB less some metadata per
   * write: a 6 MiB write (within NBD's 32 MiB maximum payload), crossing objects and starting off
   * every boundary, must go in chunks and read back whole.
   */
  @Test
  void writesLongerThanTheStoresLargestSingleWriteLandWhole() throws Exception {
    try (StoreOnReactors served = openStore(dir)) {
      Reactors reactors = served.reactors();
      assertTrue(served.pieces().maxWriteBytes() < MIB, "limit " + served.pieces().maxWriteBytes());
      BlockImage image = image(served, "big", 16L * MIB);
      byte[] bytes = new byte[6 * MIB];
      new Random(11).nextBytes(bytes);
      long offset = 3L * MIB - 4097;
      write(reactors, image, offset, Unpooled.directBuffer(bytes.length).writeBytes(bytes));
      assertArrayEquals(bytes, read(reactors, image, offset, bytes.length));
      // A whole object in one request, on its own.
      write(reactors, image, 12L * MIB, filled(4 * MIB, (byte) 0x5a));
      assertRange(read(reactors, image, 12L * MIB, 4 * MIB), 0, 4 * MIB, (byte) 0x5a);
      // WRITE_ZEROES of a whole object and a TRIM of all but its first byte write zeros too.
      onLoop(reactors, () -> image.writeZeroes(12L * MIB, 4 * MIB, false, Zeroing.ALLOCATE));
      assertRange(read(reactors, image, 12L * MIB, 4 * MIB), 0, 4 * MIB, (byte) 0);
      write(reactors, image, 12L * MIB, filled(4 * MIB, (byte) 0x5b));
      onLoop(reactors, () -> image.trim(12L * MIB + 1, 4 * MIB - 1, false));
      byte[] trimmed = read(reactors, image, 12L * MIB, 4 * MIB);
      assertRange(trimmed, 0, 1, (byte) 0x5b);
      assertRange(trimmed, 1, 4 * MIB, (byte) 0);
    }
  }

  /** Runs an image call on reactor 0, as a gateway would, and waits for it. */
  /** A fresh store of two 64 MiB shards in {@code dir}, served on reactors. */
  static StoreOnReactors openStore(Path dir) throws Exception {
    Path data = dir.resolve("store");
    StoreFormat.mkfs(data, 2, 64L << 20, StoreFormat.defaultSegmentBytes(64L << 20));
    return StoreOnReactors.open(data, StoreConfig.defaults());
  }

  /** A writable image {@code name} of {@code size} bytes over {@code served}, 4 MiB objects. */
  static BlockImage image(StoreOnReactors served, String name, long size) {
    return new ObjectImage(
        served.ops(),
        served.pieces(),
        new ImageLayout(name, ImageLayout.DEFAULT_OBJECT_SIZE),
        name,
        size,
        false);
  }

  static <T> T onLoop(Reactors reactors, Supplier<CompletionStage<T>> call) throws Exception {
    CompletableFuture<T> done = new CompletableFuture<>();
    reactors
        .get(0)
        .loop()
        .execute(
            () ->
                call.get()
                    .whenComplete(
                        (value, failure) -> {
                          if (failure != null) {
                            done.completeExceptionally(failure);
                          } else {
                            done.complete(value);
                          }
                        }));
    return done.get(30, TimeUnit.SECONDS);
  }

  static ByteBuf filled(int length, byte value) {
    byte[] bytes = new byte[length];
    Arrays.fill(bytes, value);
    return Unpooled.directBuffer(length).writeBytes(bytes);
  }

  static void write(Reactors reactors, BlockImage image, long offset, ByteBuf data)
      throws Exception {
    CompletableFuture<Throwable> done = new CompletableFuture<>();
    reactors
        .get(0)
        .loop()
        .execute(() -> image.write(offset, data, false, failure -> done.complete(failure)));
    assertNull(done.get(30, TimeUnit.SECONDS));
  }

  /** Reads into a buffer full of stale bytes, behind a header the read must not touch. */
  static byte[] read(Reactors reactors, BlockImage image, long offset, int length)
      throws Exception {
    ByteBuf into = Unpooled.directBuffer(HEADER + length);
    into.writeBytes(filledArray(HEADER + length)).writerIndex(HEADER);
    CompletableFuture<Throwable> done = new CompletableFuture<>();
    reactors
        .get(0)
        .loop()
        .execute(() -> image.readInto(offset, length, into, failure -> done.complete(failure)));
    try {
      assertNull(done.get(30, TimeUnit.SECONDS));
      assertEquals(HEADER, into.writerIndex(), "the caller moves the writer index");
      byte[] header = new byte[HEADER];
      into.getBytes(0, header);
      assertRange(header, 0, HEADER, STALE);
      byte[] bytes = new byte[length];
      into.getBytes(HEADER, bytes);
      return bytes;
    } finally {
      into.release();
    }
  }

  private static byte[] filledArray(int length) {
    byte[] bytes = new byte[length];
    Arrays.fill(bytes, STALE);
    return bytes;
  }

  static void assertRange(byte[] bytes, int from, int to, byte expected) {
    for (int i = from; i < to; i++) {
      if (bytes[i] != expected) {
        assertEquals(expected, bytes[i], "byte " + i + " of [" + from + ", " + to + ")");
      }
    }
  }
}
