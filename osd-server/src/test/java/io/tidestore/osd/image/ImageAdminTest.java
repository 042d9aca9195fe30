package io.tidestore.osd.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.tidestore.osd.image.ImageAdmin.ImageException;
import io.tidestore.osd.ops.ObjectOps;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.store.StoreOnReactors;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.engine.StoreFormat;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The image rules over the real store, called from a thread that is not a reactor. */
class ImageAdminTest {
  private static final long MIB = 1 << 20;

  @TempDir Path dir;

  @Test
  void namesAndSizes() {
    assertTrue(ImageAdmin.validName("vol-1_a"));
    assertFalse(ImageAdmin.validName("a.b"));
    assertFalse(ImageAdmin.validName(""));
    assertFalse(ImageAdmin.validName("x".repeat(65)));
    assertTrue(ImageAdmin.validSize(512));
    assertFalse(ImageAdmin.validSize(0));
    assertFalse(ImageAdmin.validSize(513));
  }

  @Test
  void createResizeAndRemoveFollowTheRules() throws Exception {
    Path data = dir.resolve("store");
    StoreFormat.mkfs(data, 2, 64L << 20, StoreFormat.defaultSegmentBytes(64L << 20));
    try (StoreOnReactors served = StoreOnReactors.open(data, StoreConfig.defaults())) {
      ObjectOps ops = served.ops();
      ImageAdmin images = new ImageAdmin(ops);
      ImageLayout layout = ImageHeaders.layout("vol");
      // Data left by an earlier image of that name must not show through.
      write(ops, layout.dataObjectName(1), 100);
      images.create("vol", 16 * MIB);
      assertFalse(exists(ops, layout.dataObjectName(1)));
      assertEquals(
          "vol already exists",
          assertThrows(ImageException.class, () -> images.create("vol", MIB)).getMessage());
      images.create("other", MIB);
      assertEquals(List.of("other", "vol"), images.list());
      assertEquals(16 * MIB, images.info("vol").size());

      write(ops, layout.dataObjectName(0), 4096);
      write(ops, layout.dataObjectName(3), 4096);
      assertTrue(
          assertThrows(ImageException.class, () -> images.resize("vol", 2 * MIB, false))
              .getMessage()
              .contains("pass --allow-shrink"));
      assertEquals(16 * MIB, images.resize("vol", 2048, true));
      assertEquals(2048, images.info("vol").size());
      assertFalse(exists(ops, layout.dataObjectName(3)), "past the new end");
      assertEquals(2048, size(ops, layout.dataObjectName(0)), "cut at the new end");

      images.remove("vol");
      assertEquals(List.of("other"), images.list());
      assertFalse(exists(ops, layout.dataObjectName(0)));
      assertEquals(
          "no image vol",
          assertThrows(ImageException.class, () -> images.remove("vol")).getMessage());
      assertEquals(
          "no image vol",
          assertThrows(ImageException.class, () -> images.info("vol")).getMessage());
    }
  }

  private static void write(ObjectOps ops, String object, int bytes) throws Exception {
    ops.write(object, 0, Unpooled.wrappedBuffer(new byte[bytes]))
        .toCompletableFuture()
        .get(30, TimeUnit.SECONDS);
  }

  private static long size(ObjectOps ops, String object) throws Exception {
    return ops.stat(object).toCompletableFuture().get(30, TimeUnit.SECONDS).size();
  }

  private static boolean exists(ObjectOps ops, String object) throws Exception {
    try {
      size(ops, object);
      return true;
    } catch (ExecutionException e) {
      if (ObjectOpsException.is(e.getCause(), ObjectOpsException.Code.NOT_FOUND)) {
        return false;
      }
      throw e;
    }
  }
}
