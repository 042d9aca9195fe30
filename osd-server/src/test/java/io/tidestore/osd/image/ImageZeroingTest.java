package io.tidestore.osd.image;

import static io.tidestore.osd.image.ImageDataPathTest.assertRange;
import static io.tidestore.osd.image.ImageDataPathTest.filled;
import static io.tidestore.osd.image.ImageDataPathTest.image;
import static io.tidestore.osd.image.ImageDataPathTest.onLoop;
import static io.tidestore.osd.image.ImageDataPathTest.openStore;
import static io.tidestore.osd.image.ImageDataPathTest.read;
import static io.tidestore.osd.image.ImageDataPathTest.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.osd.image.BlockImage.Zeroing;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.reactor.Reactors;
import io.tidestore.osd.store.StoreOnReactors;
import io.tidestore.store.api.Allocation;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Zeroing and allocation of an image over a real store on two reactors: trims punch whole blocks
 * (holes again, as allocation then says) and write only partial edge blocks, a whole object is
 * removed, FAST zeroing never writes, NO_HOLE zeroing stays allocated, and allocation merges what
 * the objects say into image offsets.
 */
class ImageZeroingTest {
  private static final int MIB = 1 << 20;
  private static final int BLOCK = 4096;

  @TempDir Path dir;

  private static String ranges(Reactors reactors, BlockImage image, long offset, long length)
      throws Exception {
    Allocation a = onLoop(reactors, () -> image.allocation(offset, length));
    return Arrays.toString(a.ranges());
  }

  private static String ranges(long... r) {
    return Arrays.toString(r);
  }

  @Test
  void trimsPunchWholeBlocksAndAllocationSeesTheHoles() throws Exception {
    try (StoreOnReactors served = openStore(dir)) {
      Reactors reactors = served.reactors();
      BlockImage image = image(served, "z", 16L * MIB);
      assertEquals(ranges(), ranges(reactors, image, 0, 16L * MIB), "a new image is all holes");
      write(reactors, image, 0, filled(MIB, (byte) 0x11));
      // Straddles objects 1 and 2: one range in image offsets.
      write(reactors, image, 8L * MIB - BLOCK, filled(2 * BLOCK, (byte) 0x22));
      assertEquals(
          ranges(0, MIB, 8L * MIB - BLOCK, 8L * MIB + BLOCK),
          ranges(reactors, image, 0, 16L * MIB));

      // Partial edge blocks are written as zeros (still data), the whole block between is freed.
      onLoop(reactors, () -> image.trim(BLOCK + 100, 2 * BLOCK + 100, false));
      byte[] back = read(reactors, image, 0, 4 * BLOCK);
      assertRange(back, 0, BLOCK + 100, (byte) 0x11);
      assertRange(back, BLOCK + 100, 3 * BLOCK + 200, (byte) 0);
      assertRange(back, 3 * BLOCK + 200, 4 * BLOCK, (byte) 0x11);
      assertEquals(ranges(0, 2 * BLOCK, 3 * BLOCK, MIB), ranges(reactors, image, 0, 4L * MIB));

      // FAST: unaligned fails at once and changes nothing; aligned frees.
      ExecutionException fast =
          assertThrows(
              ExecutionException.class,
              () -> onLoop(reactors, () -> image.writeZeroes(0, 100, false, Zeroing.FAST)));
      assertTrue(ObjectOpsException.is(fast.getCause(), ObjectOpsException.Code.UNSUPPORTED));
      assertRange(read(reactors, image, 0, 100), 0, 100, (byte) 0x11);
      onLoop(reactors, () -> image.writeZeroes(MIB - 2 * BLOCK, 2 * BLOCK, false, Zeroing.FAST));
      assertEquals(
          ranges(0, 2 * BLOCK, 3 * BLOCK, MIB - 2 * BLOCK), ranges(reactors, image, 0, 4L * MIB));
      assertRange(read(reactors, image, MIB - 2 * BLOCK, 2 * BLOCK), 0, 2 * BLOCK, (byte) 0);

      // NO_HOLE: zeros written, so the range stays data.
      onLoop(reactors, () -> image.writeZeroes(MIB, 2 * BLOCK, false, Zeroing.ALLOCATE));
      assertEquals(
          ranges(0, 2 * BLOCK, 3 * BLOCK, MIB - 2 * BLOCK, MIB, MIB + 2 * BLOCK),
          ranges(reactors, image, 0, 4L * MIB));

      // A whole object is removed: object 1 holds nothing any more, object 2 keeps its block.
      onLoop(reactors, () -> image.writeZeroes(4L * MIB, 4L * MIB, false, Zeroing.PUNCH));
      assertEquals(
          ranges(8L * MIB, 8L * MIB + BLOCK), ranges(reactors, image, 4L * MIB, 12L * MIB));
      assertRange(read(reactors, image, 8L * MIB - BLOCK, BLOCK), 0, BLOCK, (byte) 0);

      // Caching reads the range, holes and missing objects included, and changes nothing.
      onLoop(reactors, () -> image.cache(0, 16L * MIB));
      assertRange(read(reactors, image, 8L * MIB, BLOCK), 0, BLOCK, (byte) 0x22);
    }
  }

  @Test
  void zeroingThatEndsTheImageFreesItsLastPartialBlock() throws Exception {
    try (StoreOnReactors served = openStore(dir)) {
      Reactors reactors = served.reactors();
      long size = MIB + 1000; // the last block is partial
      BlockImage image = image(served, "odd", size);
      write(reactors, image, 0, filled((int) size, (byte) 0x33));
      onLoop(reactors, () -> image.writeZeroes(MIB, 1000, false, Zeroing.FAST));
      assertEquals(ranges(0, MIB), ranges(reactors, image, 0, size));
      assertRange(read(reactors, image, MIB, 1000), 0, 1000, (byte) 0);
    }
  }
}
