package io.tidestore.store.shard;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.testing.StoreHarness;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FullStoreTest {
  @TempDir Path dir;

  static byte[] content(int i) {
    byte[] b = new byte[64 << 10];
    new Random(i).nextBytes(b);
    return b;
  }

  @Test
  void fullStoreGivesNoSpaceAndKeepsReadsRemovesAndLaterWritesWorking() throws IOException {
    try (StoreHarness h = new StoreHarness(dir, 11, StoreHarness.testConfig())) {
      List<ObjectKey> written = new ArrayList<>();
      StoreException full = null;
      for (int i = 0; i < 200 && full == null; i++) {
        ObjectKey k = new ObjectKey(1, "fill-" + i);
        try {
          h.write(k, 0, content(i));
          written.add(k);
        } catch (StoreException e) {
          full = e;
        }
      }
      assertTrue(full != null, "a 4 MiB shard cannot take 200 x 64 KiB");
      assertEquals(StoreException.Code.NO_SPACE, full.code());
      assertTrue(full.getMessage().contains("no space"), full.getMessage());
      assertTrue(written.size() > 20, "wrote " + written.size());
      for (int i = 0; i < written.size(); i++) {
        assertArrayEquals(content(i), h.read(written.get(i), 0, 64 << 10));
      }
      for (int i = 0; i < written.size(); i += 2) {
        ObjectKey k = written.get(i);
        h.call((StoreCompletion<Void> c) -> h.shard.remove(k, c));
      }
      // Space comes back once the cleaner and a checkpoint have reclaimed the segments.
      ObjectKey again = new ObjectKey(1, "after");
      boolean ok = false;
      // Each attempt may itself park up to the shard's 10 s space wait.
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (!ok && System.nanoTime() < deadline) {
        try {
          h.write(again, 0, content(999));
          ok = true;
        } catch (StoreException e) {
          assertEquals(StoreException.Code.NO_SPACE, e.code());
          h.pass();
        }
      }
      assertTrue(ok, "writes work again after removes");
      h.remount();
      assertArrayEquals(content(999), h.read(again, 0, 64 << 10));
      for (int i = 1; i < written.size(); i += 2) {
        assertArrayEquals(content(i), h.read(written.get(i), 0, 64 << 10));
      }
    }
  }
}
