package io.tidestore.store.record;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class RecordCodecTest {
  private final CRC32C crc = new CRC32C();

  private MemorySegment encodeSample(Arena arena) {
    DeltaWriter d = new DeltaWriter();
    d.create(7, 3, "image.0001".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    d.write(7, 5, 2, 12_345);
    d.crc(0x11111111);
    d.crc(0x22222222);
    d.truncate(7, 9000);
    d.setXattr(7, "user.k", new byte[] {1, 2, 3});
    d.removeXattr(7, "user.old");
    d.relocate(7, 4, 99, 0x33333333);
    d.punch(7, 1, 3);
    d.remove(8);
    MemorySegment meta = arena.allocate(2L * Blocks.SIZE, Blocks.SIZE);
    MemorySegment.copy(d.bytes(), 0, meta, RecordDescriptor.HEADER_LENGTH, d.length());
    new RecordHeader(2, 41, 6, d.length(), 3, d.count(), 0x77L).encode(meta, crc);
    return meta;
  }

  @Test
  void headerAndDeltasRoundTrip() throws CorruptRecordException {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment meta = encodeSample(arena);
      RecordHeader h = RecordHeader.peek(meta, 1 << 20);
      assertNotNull(h);
      assertEquals(2, h.shard());
      assertEquals(41, h.seq());
      assertEquals(6, h.epoch());
      assertEquals(0x77L, h.storeId());
      assertEquals(3, h.dataBlocks());
      assertEquals(8, h.deltaCount());
      assertEquals((h.metaBlocks() + 3L) * Blocks.SIZE, h.length());
      assertTrue(h.verify(meta, crc));
      List<String> seen = new ArrayList<>();
      int blocks =
          DeltaReader.read(
              meta,
              RecordDescriptor.HEADER_LENGTH,
              h.metaLength(),
              h.deltaCount(),
              new DeltaVisitor() {
                @Override
                public void create(long id, long pool, String name) {
                  seen.add("create " + id + " " + pool + " " + name);
                }

                @Override
                public void write(
                    long id, int first, int n, long end, MemorySegment crcs, long off, int di) {
                  seen.add(
                      "write "
                          + id
                          + " "
                          + first
                          + " "
                          + n
                          + " "
                          + end
                          + " "
                          + di
                          + " "
                          + Integer.toHexString(crcs.get(Blocks.INT, off + 4)));
                }

                @Override
                public void truncate(long id, long size) {
                  seen.add("truncate " + id + " " + size);
                }

                @Override
                public void remove(long id) {
                  seen.add("remove " + id);
                }

                @Override
                public void setXattr(long id, String name, byte[] value) {
                  assertArrayEquals(new byte[] {1, 2, 3}, value);
                  seen.add("setxattr " + id + " " + name);
                }

                @Override
                public void removeXattr(long id, String name) {
                  seen.add("rmxattr " + id + " " + name);
                }

                @Override
                public void relocate(long id, int block, int old, int c, int di) {
                  seen.add("relocate " + id + " " + block + " " + old + " " + di);
                }

                @Override
                public void punch(long id, int first, int n) {
                  seen.add("punch " + id + " " + first + " " + n);
                }
              });
      assertEquals(3, blocks);
      assertEquals(
          List.of(
              "create 7 3 image.0001",
              "write 7 5 2 12345 0 22222222",
              "truncate 7 9000",
              "setxattr 7 user.k",
              "rmxattr 7 user.old",
              "relocate 7 4 99 2",
              "punch 7 1 3",
              "remove 8"),
          seen);
    }
  }

  @Test
  void everyFlippedByteOfHeaderOrDeltasIsDetected() {
    Random r = new Random(4);
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment meta = encodeSample(arena);
      RecordHeader h = RecordHeader.peek(meta, 1 << 20);
      int covered = RecordDescriptor.HEADER_LENGTH + h.metaLength();
      for (int i = 0; i < 500; i++) {
        int at = r.nextInt(covered);
        byte old = meta.get(ValueLayout.JAVA_BYTE, at);
        meta.set(ValueLayout.JAVA_BYTE, at, (byte) (old ^ (1 + r.nextInt(255))));
        RecordHeader damaged = RecordHeader.peek(meta, 1 << 20);
        assertTrue(damaged == null || !damaged.verify(meta, crc), "flip at " + at + " undetected");
        meta.set(ValueLayout.JAVA_BYTE, at, old);
      }
      assertTrue(RecordHeader.peek(meta, 1 << 20).verify(meta, crc));
    }
  }

  @Test
  void truncatedDeltasAreCorruptNotAnException() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment meta = encodeSample(arena);
      RecordHeader h = RecordHeader.peek(meta, 1 << 20);
      assertThrows(
          CorruptRecordException.class,
          () ->
              DeltaReader.read(
                  meta,
                  RecordDescriptor.HEADER_LENGTH,
                  h.metaLength() - 5,
                  h.deltaCount(),
                  new DeltaVisitorAdapter()));
    }
  }

  @Test
  void superblockRoundTripAndDamage() throws CorruptRecordException {
    Superblock sb = new Superblock(1, 8, 1L << 30, 8 << 20, 127, 8192, 5, 9, 0x1234);
    MemorySegment block = MemorySegment.ofArray(new byte[Blocks.SIZE]);
    sb.encode(block, crc);
    assertEquals(sb, Superblock.decode(block, crc));
    block.set(ValueLayout.JAVA_BYTE, 50, (byte) 1);
    CorruptRecordException e =
        assertThrows(CorruptRecordException.class, () -> Superblock.decode(block, crc));
    assertFalse(e.getMessage().isEmpty());
  }

  /** Accepts every delta and ignores it. */
  static final class DeltaVisitorAdapter implements DeltaVisitor {
    @Override
    public void create(long id, long pool, String name) {}

    @Override
    public void write(long id, int f, int n, long e, MemorySegment c, long o, int d) {}

    @Override
    public void truncate(long id, long size) {}

    @Override
    public void remove(long id) {}

    @Override
    public void setXattr(long id, String name, byte[] value) {}

    @Override
    public void removeXattr(long id, String name) {}

    @Override
    public void relocate(long id, int block, int oldLocation, int crc, int dataIndex) {}

    @Override
    public void punch(long id, int firstBlock, int blocks) {}
  }
}
