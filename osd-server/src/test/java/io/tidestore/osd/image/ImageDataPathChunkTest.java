package io.tidestore.osd.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.ops.PieceIo;
import io.tidestore.store.api.Allocation;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Writes longer than the store's largest single write ({@link PieceIo#maxWriteBytes}) go in chunks
 * the store accepts, over a store whose limit is tiny and whose completions the test releases:
 * every byte lands where it belongs, the request completes once, after its last chunk, and the
 * payload is released.
 */
class ImageDataPathChunkTest {
  private static final int OBJECT = 64 << 10;
  private static final int MAX_WRITE = 3 * 4096;

  /**
   * Objects in memory; refuses writes whose blocks span more than MAX_WRITE, as the store cannot
   * fit them in a journal record; completes on demand.
   */
  private static final class SmallWritesIo implements PieceIo {
    final Map<String, byte[]> objects = new HashMap<>();
    final List<StoreCompletion<Void>> pending = new ArrayList<>();
    final List<Integer> sizes = new ArrayList<>();
    boolean oversized;

    @Override
    public Target target(String name) {
      return new Target(new ObjectKey(1, name), 0);
    }

    @Override
    public void read(
        Target target, long offset, MemorySegment into, StoreCompletion<Integer> done) {
      org.junit.jupiter.api.Assertions.fail("the write path never reads");
    }

    @Override
    public void write(Target target, long offset, ByteBuf data, StoreCompletion<Void> done) {
      try {
        int length = data.readableBytes();
        sizes.add(length);
        long blocksSpan = ((offset + length + 4095) & -4096) - (offset & -4096);
        if (blocksSpan > MAX_WRITE) {
          oversized = true;
          done.complete(null, new StoreException(StoreException.Code.INVALID, "too big"));
          return;
        }
        byte[] object = objects.computeIfAbsent(target.key().name(), n -> new byte[OBJECT]);
        data.getBytes(data.readerIndex(), object, (int) offset, length);
        pending.add(done);
      } finally {
        data.release();
      }
    }

    @Override
    public void punch(Target target, long offset, long length, StoreCompletion<Void> done) {
      org.junit.jupiter.api.Assertions.fail("the write path never punches");
    }

    @Override
    public void allocation(
        Target target, long offset, long length, StoreCompletion<Allocation> done) {
      org.junit.jupiter.api.Assertions.fail("the write path never asks for allocation");
    }

    @Override
    public int maxWriteBytes() {
      return MAX_WRITE;
    }
  }

  private final SmallWritesIo io = new SmallWritesIo();
  private final ImageLayout layout = new ImageLayout("ck", OBJECT);
  private final ImageDataPath path = new ImageDataPath(layout, new PieceTargets(io, layout, 16));
  private final List<Throwable> outcomes = new ArrayList<>();

  @Test
  void aWriteSpanningSeveralChunksAndObjectsLandsAndCompletesOnceAfterItsLastChunk() {
    // 30000 bytes in object 0 (starting off a block boundary), all of object 1, 30000 in object 2
    long offset = OBJECT - 30_000;
    int length = 30_000 + OBJECT + 30_000;
    byte[] bytes = new byte[length];
    new Random(7).nextBytes(bytes);
    ByteBuf data = Unpooled.directBuffer(length).writeBytes(bytes);

    path.write(offset, data, outcomes::add);

    assertTrue(!io.oversized, "a chunk above the store's limit: " + io.sizes);
    // object 0 at 35536: to the block boundary at 45056, then whole blocks
    assertEquals(List.of(9_520, 12_288, 8_192), io.sizes.subList(0, 3));
    assertEquals(List.of(12_288, 12_288, 12_288, 12_288, 12_288, 4_096), io.sizes.subList(3, 9));
    assertEquals(List.of(12_288, 12_288, 5_424), io.sizes.subList(9, 12));
    assertEquals(12, io.pending.size());
    assertEquals(0, data.refCnt(), "every chunk was released by the store");
    for (int i = 0; i < io.pending.size() - 1; i++) {
      io.pending.get(i).complete(null, null);
      assertTrue(outcomes.isEmpty(), "acknowledged before chunk " + (i + 1) + " was durable");
    }
    io.pending.getLast().complete(null, null);
    assertEquals(1, outcomes.size());
    assertNull(outcomes.getFirst());

    byte[] landed = new byte[length];
    System.arraycopy(io.objects.get(layout.dataObjectName(0)), OBJECT - 30_000, landed, 0, 30_000);
    System.arraycopy(io.objects.get(layout.dataObjectName(1)), 0, landed, 30_000, OBJECT);
    System.arraycopy(io.objects.get(layout.dataObjectName(2)), 0, landed, 30_000 + OBJECT, 30_000);
    assertArrayEquals(bytes, landed);
  }

  @Test
  void aLongWriteWithinOneObjectIsChunkedAndAFailedChunkFailsItOnce() {
    ByteBuf data = Unpooled.directBuffer(30_000).writeZero(30_000);
    path.write(100, data, outcomes::add);
    assertEquals(List.of(12_188, 12_288, 5_524), io.sizes);
    io.pending.get(0).complete(null, new StoreException(StoreException.Code.NO_SPACE, "full"));
    io.pending.get(1).complete(null, new StoreException(StoreException.Code.IO_ERROR, "bad"));
    assertTrue(outcomes.isEmpty());
    io.pending.get(2).complete(null, null);
    assertEquals(1, outcomes.size());
    assertEquals(
        ObjectOpsException.Code.NO_SPACE,
        assertInstanceOf(ObjectOpsException.class, outcomes.getFirst()).code());
  }

  @Test
  void aWriteWhoseBlocksFitTheLimitIsOneStoreWriteAndOneThatTouchesOneMoreIsTwo() {
    path.write(OBJECT - MAX_WRITE, Unpooled.directBuffer().writeZero(MAX_WRITE), outcomes::add);
    assertEquals(List.of(MAX_WRITE), io.sizes);
    io.pending.getFirst().complete(null, null);
    assertEquals(1, outcomes.size());
    assertNull(outcomes.getFirst());

    path.write(1, Unpooled.directBuffer().writeZero(MAX_WRITE), outcomes::add);
    assertEquals(List.of(MAX_WRITE, MAX_WRITE - 1, 1), io.sizes);
    assertTrue(!io.oversized);
  }
}
