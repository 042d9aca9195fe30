package io.tidestore.store.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.index.BlockEntry;
import io.tidestore.store.index.ObjectEntry;
import io.tidestore.store.index.ObjectIndex;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.CorruptRecordException;
import io.tidestore.store.record.DeltaReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A checkpoint image round-trips the applied index, and any damage to it is refused. */
class CheckpointCodecTest {
  private static final long STORE = 0x5eedL;
  private final Arena arena = Arena.ofConfined();
  private final CRC32C crc = new CRC32C();

  /** What the checkpointer passes: where replay continues and the next id (here 5). */
  private final Checkpoint header = new Checkpoint(7, 123, 4, 2, 8192, 5, 0, 0);

  @AfterEach
  void close() {
    arena.close();
  }

  private static ObjectIndex sample() {
    ObjectIndex index = new ObjectIndex();
    ObjectEntry a = index.create(new ObjectKey(1, "alpha"));
    a.exists = true;
    a.size = 3 * Blocks.SIZE + 100;
    a.setBlock(0, BlockEntry.pack(40, 0xabcd));
    a.setBlock(3, BlockEntry.pack(41, 0x1234)); // blocks 1 and 2 are holes
    a.setXattr("size", new byte[] {1, 2, 3});
    a.setXattr("", new byte[0]);
    ObjectEntry b = index.create(new ObjectKey(2, "b\u00e9ta"));
    b.exists = true;
    b.size = 0;
    // Staged but never applied: not in a checkpoint.
    index.create(new ObjectKey(1, "pending"));
    // Blocks past the size (cut by a truncate) are not written either.
    ObjectEntry c = index.create(new ObjectKey(1, "cut"));
    c.exists = true;
    c.size = Blocks.SIZE;
    c.setBlock(0, BlockEntry.pack(50, 1));
    c.setBlock(5, BlockEntry.pack(51, 2));
    return index;
  }

  private MemorySegment encode(ObjectIndex index) {
    return CheckpointCodec.encode(arena, 3, STORE, header, index, crc);
  }

  private ObjectIndex load(MemorySegment image) throws CorruptRecordException {
    Checkpoint h = CheckpointCodec.decodeHeader(image.asSlice(0, Blocks.SIZE), 3, STORE, crc);
    ObjectIndex loaded = new ObjectIndex();
    CheckpointCodec.load(image, h, loaded, crc);
    return loaded;
  }

  @Test
  void theAppliedIndexRoundTrips() throws CorruptRecordException {
    ObjectIndex index = sample();
    MemorySegment image = encode(index);
    assertEquals(0, image.byteSize() % Blocks.SIZE);
    Checkpoint h = CheckpointCodec.decodeHeader(image.asSlice(0, Blocks.SIZE), 3, STORE, crc);
    assertEquals(header.generation(), h.generation());
    assertEquals(header.lastSeq(), h.lastSeq());
    assertEquals(header.epoch(), h.epoch());
    assertEquals(header.nextSegment(), h.nextSegment());
    assertEquals(header.nextOffset(), h.nextOffset());
    assertEquals(5, h.nextObjectId());
    assertEquals(5, index.nextId());
    assertEquals(3, h.objectCount());

    ObjectIndex loaded = load(image);
    assertEquals(index.nextId(), loaded.nextId(), "ids are never reused after a reload");
    assertNull(loaded.get(new ObjectKey(1, "pending")), "an unapplied object was checkpointed");
    for (String name : new String[] {"alpha", "cut"}) {
      ObjectEntry want = index.get(new ObjectKey(1, name));
      ObjectEntry got = loaded.get(new ObjectKey(1, name));
      assertEquals(want.id, got.id);
      assertTrue(got.exists);
      assertEquals(want.size, got.size);
      for (int blk = 0; blk < Blocks.count(want.size); blk++) {
        assertEquals(want.block(blk), got.block(blk), name + " block " + blk);
      }
      assertEquals(want.xattrs().keySet(), got.xattrs().keySet());
      for (var x : want.xattrs().entrySet()) {
        assertArrayEquals(x.getValue(), got.xattr(x.getKey()));
      }
    }
    assertEquals(
        BlockEntry.HOLE, loaded.get(new ObjectKey(1, "cut")).block(5), "a cut block came back");
    ObjectEntry beta = loaded.get(new ObjectKey(2, "b\u00e9ta"));
    assertEquals("b\u00e9ta".getBytes(StandardCharsets.UTF_8).length, beta.key.nameBytes().length);
    assertEquals(loaded.recountFootprintBytes(), loaded.footprintBytes());
  }

  @Test
  void aDamagedBodyOrHeaderIsRefused() {
    MemorySegment image = encode(sample());
    long bodyByte = CheckpointDescriptor.BODY_OFFSET + 20;
    image.set(Blocks.INT, bodyByte, image.get(Blocks.INT, bodyByte) ^ 1);
    CorruptRecordException body = assertThrows(CorruptRecordException.class, () -> load(image));
    assertTrue(body.getMessage().contains("body crc"), body.getMessage());

    MemorySegment other = encode(sample());
    long headerByte = CheckpointDescriptor.LAST_SEQ_OFFSET;
    other.set(Blocks.LONG, headerByte, other.get(Blocks.LONG, headerByte) + 1);
    CorruptRecordException head = assertThrows(CorruptRecordException.class, () -> load(other));
    assertTrue(head.getMessage().contains("header crc"), head.getMessage());
  }

  @Test
  void anotherShardsOrStoresCheckpointIsRefused() {
    MemorySegment image = encode(sample());
    MemorySegment first = image.asSlice(0, Blocks.SIZE);
    assertThrows(
        CorruptRecordException.class, () -> CheckpointCodec.decodeHeader(first, 4, STORE, crc));
    assertThrows(
        CorruptRecordException.class, () -> CheckpointCodec.decodeHeader(first, 3, STORE + 1, crc));
    MemorySegment zeros = arena.allocate(Blocks.SIZE);
    assertThrows(
        CorruptRecordException.class, () -> CheckpointCodec.decodeHeader(zeros, 3, STORE, crc));
  }

  @Test
  void anObjectLargerThanTheLargestIsRefusedBeforeItsBlocksLoad() throws CorruptRecordException {
    ObjectIndex index = new ObjectIndex();
    ObjectEntry big = index.create(new ObjectKey(1, "big"));
    big.exists = true;
    big.size = 1L << 40;
    big.setBlock(1 << 20, BlockEntry.pack(60, 3)); // 2^20 + 1 slots: an 8 MiB block array
    MemorySegment image = encode(index);
    Checkpoint h = CheckpointCodec.decodeHeader(image.asSlice(0, Blocks.SIZE), 3, STORE, crc);
    ObjectIndex loaded = new ObjectIndex();
    CorruptRecordException e =
        assertThrows(
            CorruptRecordException.class, () -> CheckpointCodec.load(image, h, loaded, crc));
    assertTrue(e.getMessage().contains("size 1099511627776"), e.getMessage());
    assertTrue(e.getMessage().contains("67108864"), e.getMessage());
    assertTrue(loaded.footprintBytes() < 1 << 20, loaded.footprintBytes() + " bytes loaded");

    // The largest object itself, its last block mapped, loads.
    big.size = ShardStore.MAX_OBJECT_BYTES;
    big.trimBlocks(0);
    big.setBlock(DeltaReader.MAX_OBJECT_BLOCKS - 1, BlockEntry.pack(61, 4));
    ObjectEntry largest = load(encode(index)).get(new ObjectKey(1, "big"));
    assertEquals(ShardStore.MAX_OBJECT_BYTES, largest.size);
    assertEquals(BlockEntry.pack(61, 4), largest.block(DeltaReader.MAX_OBJECT_BLOCKS - 1));
  }

  @Test
  void aTruncatedBodyIsRefused() throws CorruptRecordException {
    MemorySegment image = encode(sample());
    Checkpoint h = CheckpointCodec.decodeHeader(image.asSlice(0, Blocks.SIZE), 3, STORE, crc);
    MemorySegment cut = image.asSlice(0, CheckpointDescriptor.BODY_OFFSET + h.bodyLength() - 1);
    assertThrows(
        CorruptRecordException.class, () -> CheckpointCodec.load(cut, h, new ObjectIndex(), crc));
  }
}
