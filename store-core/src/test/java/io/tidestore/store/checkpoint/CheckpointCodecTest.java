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
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A checkpoint image round-trips the applied index, and any damage to it is refused. */
class CheckpointCodecTest {
  private static final long STORE = 0x5eedL;
  private final Arena arena = Arena.ofConfined();
  private final CRC32C crc = new CRC32C();

  /** Every index a test made: their block maps are native memory, freed after each test. */
  private final List<ObjectIndex> indexes = new ArrayList<>();

  /** What the checkpointer passes: where replay continues and the next id (here 5). */
  private final Checkpoint header = new Checkpoint(7, 123, 4, 2, 8192, 5, 0, 0);

  private ObjectIndex newIndex() {
    ObjectIndex index = new ObjectIndex();
    indexes.add(index);
    return index;
  }

  @AfterEach
  void close() {
    indexes.forEach(ObjectIndex::close);
    arena.close();
  }

  private ObjectIndex sample() {
    ObjectIndex index = newIndex();
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
    ObjectIndex loaded = newIndex();
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

    assertLoadsAsSample(index, load(image));
  }

  @Test
  void aVersionOneCheckpointStillLoads() throws CorruptRecordException {
    ObjectIndex index = sample();
    MemorySegment image = VersionOneImage.encode(arena, 3, STORE, header, index, crc);
    assertEquals(1, image.get(Blocks.SHORT, CheckpointDescriptor.VERSION_OFFSET));
    assertLoadsAsSample(index, load(image));
  }

  @Test
  void randomIndexesRoundTripAndVersionTwoIsSmaller() throws CorruptRecordException {
    Random random = new Random(11);
    for (int round = 0; round < 20; round++) {
      ObjectIndex index = newIndex();
      int objects = 1 + random.nextInt(50);
      for (int i = 0; i < objects; i++) {
        ObjectEntry e = index.create(new ObjectKey(random.nextInt(3), "o" + round + "." + i));
        e.exists = random.nextInt(8) > 0;
        e.size = random.nextInt(8) == 0 ? 0 : 1 + random.nextLong(ShardStore.MAX_OBJECT_BYTES);
        int blocks = (int) Blocks.count(e.size);
        int location = random.nextInt(4) == 0 ? -2 - random.nextInt(5) : random.nextInt(1 << 20);
        for (int b = 0; b < blocks && b < 3000; b++) {
          switch (random.nextInt(10)) {
            case 0 -> location = random.nextInt(); // anywhere, unsigned locations included
            case 1 -> {
              continue; // a hole
            }
            default -> location++; // in sequence
          }
          if (location != -1) { // -1 + 1 would be the hole
            e.setBlock(b, BlockEntry.pack(location, random.nextInt()));
          }
        }
        for (int x = random.nextInt(3); x > 0; x--) {
          byte[] value = new byte[random.nextInt(300)];
          random.nextBytes(value);
          e.setXattr("x" + x, value);
        }
      }
      MemorySegment v2 = encode(index);
      MemorySegment v1 = VersionOneImage.encode(arena, 3, STORE, header, index, crc);
      assertTrue(bodyLength(v2) <= bodyLength(v1), bodyLength(v2) + " > " + bodyLength(v1));
      for (MemorySegment image : new MemorySegment[] {v1, v2}) {
        ObjectIndex loaded = load(image);
        assertEquals(index.objectCount(), loaded.entries().size());
        for (ObjectEntry want : index.entries()) {
          ObjectEntry got = loaded.get(want.key);
          if (!want.exists) {
            assertNull(got, want.key.toString());
            continue;
          }
          assertEquals(want.id, got.id);
          assertEquals(want.size, got.size);
          assertEquals(want.allocatedBlocks(), got.allocatedBlocks(), want.key.toString());
          for (int b = 0; b < Math.max(want.blockSlots(), got.blockSlots()); b++) {
            assertEquals(want.block(b), got.block(b), want.key + " block " + b);
          }
          assertEquals(want.xattrs().keySet(), got.xattrs().keySet());
        }
      }
    }
  }

  @Test
  void aSequentialObjectCostsFiveBytesABlock() {
    ObjectIndex index = newIndex();
    ObjectEntry e = index.create(new ObjectKey(1, "rbd_data.seq"));
    e.exists = true;
    e.size = 1024L * Blocks.SIZE;
    for (int b = 0; b < 1024; b++) {
      e.setBlock(b, BlockEntry.pack(5000 + b, b * 31));
    }
    long body = bodyLength(encode(index));
    // id, pool, name (length and 12 bytes), size (4 MiB), slots, xattrs: 1 + 1 + 13 + 4 + 2 + 1;
    // the first block's distance (5000 zig-zagged) takes 2 bytes, every other 1, each with its crc.
    assertEquals(22 + 2 + 4 + 1023 * 5, body);
  }

  private static long bodyLength(MemorySegment image) {
    return image.get(Blocks.LONG, CheckpointDescriptor.BODY_LENGTH_OFFSET);
  }

  private static void assertLoadsAsSample(ObjectIndex index, ObjectIndex loaded) {
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
    ObjectIndex index = newIndex();
    ObjectEntry big = index.create(new ObjectKey(1, "big"));
    big.exists = true;
    big.size = 1L << 40;
    // The largest block map an entry holds (that of the largest object), under a size that
    // claims far more.
    big.setBlock(DeltaReader.MAX_OBJECT_BLOCKS - 1, BlockEntry.pack(60, 3));
    MemorySegment image = encode(index);
    Checkpoint h = CheckpointCodec.decodeHeader(image.asSlice(0, Blocks.SIZE), 3, STORE, crc);
    ObjectIndex loaded = newIndex();
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
    assertThrows(CorruptRecordException.class, () -> CheckpointCodec.load(cut, h, newIndex(), crc));
  }
}
