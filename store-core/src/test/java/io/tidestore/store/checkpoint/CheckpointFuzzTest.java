package io.tidestore.store.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.index.BlockEntry;
import io.tidestore.store.index.ObjectEntry;
import io.tidestore.store.index.ObjectIndex;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.CorruptRecordException;
import io.tidestore.store.testing.AllocationBound;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * Fuzzes a checkpoint slot as mount reads it: {@link CheckpointCodec#decodeHeader} of its first
 * block, then {@link CheckpointCodec#load} of the body into an empty index. Input: byte 0 holds
 * flags (bit 0: make the header crc right, bit 1: the body crc, bit 2: write this shard and store
 * into the header, so the fuzzer reaches the body parser; bit 3: write version 2 into the header,
 * bit 4 with it: version 1, so both body formats are reached), then the header's first 128 bytes,
 * then the body, which the harness places at {@link CheckpointDescriptor#BODY_OFFSET}. The contract
 * (docs/format.md, "Index checkpoint"): a CorruptRecordException, or a header whose counts are at
 * least 0 and whose image size (header block and body in whole blocks) is a long, and an index as
 * the header describes it: objectCount distinct objects (no key or id twice), each existing, found
 * by its id, with an id from 1 and below the index's next id; a size within 0 to {@link
 * ShardStore#MAX_OBJECT_BYTES} (the largest object) and no block mapped at or past the size's last
 * block; names and xattr names decoded from valid UTF-8 (a name holding U+FFFD must stand in the
 * body as it is: else it was a lenient decode), the object name within the key limits (ObjectKey).
 * Loading from an image that ends with the body gives the same objects (nothing is read past the
 * bytes the body crc covers). Allocation bounded by the input size, never by a count or length
 * field.
 */
class CheckpointFuzzTest {
  private static final int SHARD = 3;
  private static final long STORE_ID = 0x5eed_0000_0000_0001L;
  private static final int HEADER_BYTES = CheckpointDescriptor.CRC_OFFSET + 4;

  private final CRC32C crc = new CRC32C();

  @FuzzTest
  void decode(byte[] input) {
    if (input.length < 1) {
      return;
    }
    // The decoder reads the body up to its end in whole blocks, zeros past the input included: the
    // bound counts the bytes it reads. An xattr of no name and no value costs some 400 bytes of
    // heap, garbage included, and takes 2 bytes of a version 2 body (6 of version 1): 256 a byte.
    AllocationBound.check(
        "checkpoint", input.length + Blocks.SIZE, 256 << 10, 256, () -> exercise(input));
  }

  private void exercise(byte[] input) {
    int flags = input[0];
    int headerBytes = Math.min(input.length - 1, HEADER_BYTES);
    int bodyBytes = Math.max(0, input.length - 1 - HEADER_BYTES);
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment image =
          arena.allocate(Blocks.roundUp(CheckpointDescriptor.BODY_OFFSET + bodyBytes), Blocks.SIZE);
      MemorySegment in = MemorySegment.ofArray(input);
      MemorySegment.copy(in, 1, image, 0, headerBytes);
      if (bodyBytes > 0) { // an input shorter than the header has no body to place
        MemorySegment.copy(
            in, 1 + HEADER_BYTES, image, CheckpointDescriptor.BODY_OFFSET, bodyBytes);
      }
      reseal(image, flags);
      Checkpoint header;
      try {
        header = CheckpointCodec.decodeHeader(image.asSlice(0, Blocks.SIZE), SHARD, STORE_ID, crc);
      } catch (CorruptRecordException e) {
        return; // the documented refusal
      }
      assertSizeable(header);
      try (ObjectIndex index = new ObjectIndex()) {
        try {
          CheckpointCodec.load(image, header, index, crc);
        } catch (CorruptRecordException e) {
          return;
        }
        assertConsistent(header, index, image);
        assertBodyOnly(image, header, index);
      }
    }
  }

  /**
   * The same checkpoint in an image that ends where its body does loads the same objects: the
   * decoder read nothing past the bytes its crc covers.
   */
  private void assertBodyOnly(MemorySegment image, Checkpoint header, ObjectIndex loaded) {
    try (ObjectIndex again = new ObjectIndex()) {
      try {
        CheckpointCodec.load(
            image.asSlice(0, CheckpointDescriptor.BODY_OFFSET + header.bodyLength()),
            header,
            again,
            crc);
      } catch (CorruptRecordException e) {
        throw new AssertionError("the body alone does not load: it read past the body", e);
      }
      assertEquals(loaded.entries().size(), again.entries().size(), "objects from the body alone");
    }
  }

  /**
   * A name holding U+FFFD was either written so or decoded leniently from bytes that are not UTF-8:
   * then its UTF-8 with its u16 length in front is not in the body.
   */
  private static void assertStoredAsIs(String name, MemorySegment image, Checkpoint header) {
    if (name.indexOf('\uFFFD') < 0) {
      return;
    }
    byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
    byte[] stored = new byte[2 + utf8.length];
    stored[0] = (byte) utf8.length;
    stored[1] = (byte) (utf8.length >>> 8);
    System.arraycopy(utf8, 0, stored, 2, utf8.length);
    byte[] body =
        image
            .asSlice(CheckpointDescriptor.BODY_OFFSET, header.bodyLength())
            .toArray(ValueLayout.JAVA_BYTE);
    for (int i = 0; i + stored.length <= body.length; i++) {
      if (Arrays.equals(body, i, i + stored.length, stored, 0, stored.length)) {
        return;
      }
    }
    throw new AssertionError("name decoded leniently from bytes that are not UTF-8: " + name);
  }

  /** Makes the fields the flags name right, as a checkpoint the store wrote would have them. */
  private void reseal(MemorySegment image, int flags) {
    if ((flags & 8) != 0) {
      image.set(
          Blocks.SHORT, CheckpointDescriptor.VERSION_OFFSET, (short) ((flags & 16) != 0 ? 1 : 2));
    }
    if ((flags & 4) != 0) {
      image.set(Blocks.INT, CheckpointDescriptor.SHARD_OFFSET, SHARD);
      image.set(Blocks.LONG, CheckpointDescriptor.STORE_ID_OFFSET, STORE_ID);
    }
    long body = image.get(Blocks.LONG, CheckpointDescriptor.BODY_LENGTH_OFFSET);
    if ((flags & 2) != 0
        && body >= 0
        && body <= image.byteSize() - CheckpointDescriptor.BODY_OFFSET) {
      image.set(
          Blocks.INT,
          CheckpointDescriptor.BODY_CRC_OFFSET,
          Blocks.crc(crc, image, CheckpointDescriptor.BODY_OFFSET, body));
    }
    if ((flags & 1) != 0) {
      image.set(
          Blocks.INT,
          CheckpointDescriptor.CRC_OFFSET,
          Blocks.crc(crc, image, 0, CheckpointDescriptor.CRC_OFFSET));
    }
  }

  /** Mount sizes the image it reads from the header: counts at least 0, a size that is a long. */
  private static void assertSizeable(Checkpoint header) {
    assertTrue(header.bodyLength() >= 0 && header.objectCount() >= 0, "" + header);
    assertTrue(
        Blocks.roundUp(CheckpointDescriptor.BODY_OFFSET + header.bodyLength())
            >= CheckpointDescriptor.BODY_OFFSET,
        "the image size of " + header + " overflows a long");
  }

  private static void assertConsistent(Checkpoint header, ObjectIndex index, MemorySegment image) {

    assertEquals(header.objectCount(), index.entries().size(), "objects loaded: " + header);
    assertEquals(header.objectCount(), index.objectCount(), "objects existing: " + header);
    for (ObjectEntry e : index.entries()) {
      assertTrue(e.exists, "loaded object does not exist: " + e.key);
      assertSame(e, index.byId(e.id), "id " + e.id + " names another object (an id twice)");
      assertTrue(
          e.id > 0 && e.id < index.nextId(),
          "id " + e.id + " not below the next id " + index.nextId());
      assertTrue(
          e.size >= 0 && e.size <= ShardStore.MAX_OBJECT_BYTES,
          "size " + e.size + " of " + e.key + " outside the largest object");
      long sizeBlocks = Blocks.count(e.size);
      for (long b = sizeBlocks; b < e.blockSlots(); b++) {
        assertEquals(
            BlockEntry.HOLE, e.block(b), e.key + " maps block " + b + " past its size " + e.size);
      }
      assertStoredAsIs(e.key.name(), image, header);
      for (Map.Entry<String, byte[]> x : e.xattrs().entrySet()) {
        assertStoredAsIs(x.getKey(), image, header);
      }
    }
  }
}
