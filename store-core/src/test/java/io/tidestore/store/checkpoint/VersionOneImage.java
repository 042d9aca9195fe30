package io.tidestore.store.checkpoint;

import io.tidestore.store.index.ObjectEntry;
import io.tidestore.store.index.ObjectIndex;
import io.tidestore.store.record.Blocks;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * Writes a checkpoint at version 1, as builds before store format 3 did (the encoder they shipped,
 * kept here so tests can make the images a store of that age holds).
 */
final class VersionOneImage {
  private VersionOneImage() {}

  /**
   * Encodes the applied state of {@code index} into a block-aligned native image allocated in
   * {@code arena}.
   */
  static MemorySegment encode(
      Arena arena, int shard, long storeId, Checkpoint header, ObjectIndex index, CRC32C crc) {
    long body = 0;
    long count = 0;
    for (ObjectEntry e : index.entries()) {
      if (e.exists) {
        body += entryLength(e);
        count++;
      }
    }
    long total = Blocks.roundUp(CheckpointDescriptor.BODY_OFFSET + body);
    MemorySegment image = arena.allocate(total, Blocks.SIZE);
    image.fill((byte) 0);
    long p = CheckpointDescriptor.BODY_OFFSET;
    for (ObjectEntry e : index.entries()) {
      if (!e.exists) {
        continue;
      }
      image.set(Blocks.LONG, p, e.id);
      image.set(Blocks.LONG, p + 8, e.key.pool());
      p = putString(image, p + 16, e.key.nameBytes());
      image.set(Blocks.LONG, p, e.size);
      int slots = (int) Math.min(e.blockSlots(), Blocks.count(e.size));
      image.set(Blocks.INT, p + 8, slots);
      p += 12;
      for (int b = 0; b < slots; b++) {
        image.set(Blocks.LONG, p, e.block(b));
        p += 8;
      }
      Map<String, byte[]> xattrs = e.xattrs();
      image.set(Blocks.SHORT, p, (short) xattrs.size());
      p += 2;
      for (var x : xattrs.entrySet()) {
        p = putString(image, p, x.getKey().getBytes(StandardCharsets.UTF_8));
        image.set(Blocks.INT, p, x.getValue().length);
        MemorySegment.copy(
            MemorySegment.ofArray(x.getValue()), 0, image, p + 4, x.getValue().length);
        p += 4 + x.getValue().length;
      }
    }
    CheckpointCodec.writeHeader(image, (short) 1, shard, storeId, header, body, count, crc);
    return image;
  }

  private static long entryLength(ObjectEntry e) {
    long n = 8 + 8 + 2 + e.key.nameBytes().length + 8 + 4;
    n += 8L * Math.min(e.blockSlots(), Blocks.count(e.size));
    n += 2;
    for (var x : e.xattrs().entrySet()) {
      n += 2 + x.getKey().getBytes(StandardCharsets.UTF_8).length + 4 + x.getValue().length;
    }
    return n;
  }

  private static long putString(MemorySegment image, long p, byte[] bytes) {
    image.set(Blocks.SHORT, p, (short) bytes.length);
    MemorySegment.copy(MemorySegment.ofArray(bytes), 0, image, p + 2, bytes.length);
    return p + 2 + bytes.length;
  }
}
