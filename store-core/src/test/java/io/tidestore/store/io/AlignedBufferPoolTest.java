package io.tidestore.store.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class AlignedBufferPoolTest {
  @Test
  void buffersAreAlignedDistinctAndInsideTheRegion() {
    try (AlignedBufferPool pool = AlignedBufferPool.allocate(8192, 4)) {
      Set<Long> addresses = new HashSet<>();
      MemorySegment[] out = new MemorySegment[4];
      for (int i = 0; i < 4; i++) {
        out[i] = pool.acquire();
        assertNotNull(out[i]);
        assertEquals(0, out[i].address() % AlignedBufferPool.ALIGNMENT);
        assertEquals(8192, out[i].byteSize());
        long delta = out[i].address() - pool.region().address();
        assertEquals(true, delta >= 0 && delta + 8192 <= pool.region().byteSize());
        addresses.add(out[i].address());
      }
      assertEquals(4, addresses.size());
      assertNull(pool.acquire(), "exhausted");
      assertThrows(IllegalStateException.class, pool::close, "buffers still out");
      for (MemorySegment buffer : out) {
        pool.release(buffer);
      }
      assertThrows(IllegalStateException.class, () -> pool.release(out[0]), "double release");
      assertEquals(4, pool.available());
    }
  }

  @Test
  void rejectsForeignSegmentsAndBadSizes() {
    assertThrows(IllegalArgumentException.class, () -> AlignedBufferPool.allocate(1000, 1));
    try (AlignedBufferPool pool = AlignedBufferPool.allocate(4096, 2)) {
      MemorySegment inside = pool.acquire();
      assertThrows(IllegalArgumentException.class, () -> pool.release(inside.asSlice(0, 512)));
      pool.release(inside);
    }
  }

  @Test
  void onlyTheOwnerHandsOutBuffers() throws Exception {
    try (AlignedBufferPool pool = AlignedBufferPool.allocate(4096, 1)) {
      CompletableFuture<Throwable> thrown = new CompletableFuture<>();
      Thread.ofPlatform()
          .start(
              () -> {
                try {
                  pool.acquire();
                  thrown.complete(null);
                } catch (Throwable t) {
                  thrown.complete(t);
                }
              });
      assertEquals(WrongThreadException.class, thrown.get().getClass());
    }
  }
}
