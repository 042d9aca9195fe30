package io.tidestore.store.journal;

import io.tidestore.store.record.Blocks;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * One pooled whole-record buffer of {@link RecordBuffers} ({@link RecordBuffers#META_BYTES} of
 * metadata room, then the data) with the views of it the journal hands out, each made on first use
 * and kept with the buffer: a view is a heap object, and making a new one for every block, record
 * and write would be the write path's allocation per operation. Owner thread only.
 */
final class RecordBuffer {
  /** The whole buffer. */
  final MemorySegment record;

  /** The metadata room, {@code [0, META_BYTES)}. */
  final MemorySegment metaRoom;

  /** The data, from {@code META_BYTES} to the end. */
  final MemorySegment data;

  /** {@link #data} as a ByteBuffer, for the blocks' crcs (position and limit set per use). */
  private ByteBuffer dataBytes;

  /** Data block {@code i}; filled on first use. */
  private final MemorySegment[] blocks;

  /** The record placed with {@code n} metadata blocks: from its first byte to the end. */
  private final MemorySegment[] recordFrom;

  /** {@link #recordFrom} as ByteBuffers, for the header's crc. */
  private final ByteBuffer[] recordFromBytes;

  /**
   * The bytes of a record write, by metadata blocks and then data blocks; each row is made when a
   * record with that many metadata blocks is first written (in practice one or two rows).
   */
  private final MemorySegment[][] writes;

  RecordBuffer(MemorySegment record) {
    this.record = record;
    this.metaRoom = record.asSlice(0, RecordBuffers.META_BYTES);
    this.data = record.asSlice(RecordBuffers.META_BYTES);
    this.blocks = new MemorySegment[(int) (data.byteSize() / Blocks.SIZE)];
    this.recordFrom = new MemorySegment[RecordBuffers.META_BYTES / Blocks.SIZE + 1];
    this.recordFromBytes = new ByteBuffer[recordFrom.length];
    this.writes = new MemorySegment[recordFrom.length][];
  }

  MemorySegment block(int i) {
    MemorySegment b = blocks[i];
    if (b == null) {
      b = data.asSlice((long) i * Blocks.SIZE, Blocks.SIZE);
      blocks[i] = b;
    }
    return b;
  }

  /** crc32c of data block {@code i}, read without a view of it. */
  int blockCrc(CRC32C crc, int i) {
    if (dataBytes == null) {
      dataBytes = data.asByteBuffer();
    }
    dataBytes.clear().limit((i + 1) * Blocks.SIZE).position(i * Blocks.SIZE);
    crc.reset();
    crc.update(dataBytes);
    return (int) crc.getValue();
  }

  /** The record with {@code metaBlocks} metadata blocks right before the data, to the end. */
  MemorySegment placed(int metaBlocks) {
    MemorySegment r = recordFrom[metaBlocks];
    if (r == null) {
      r = record.asSlice(RecordBuffers.META_BYTES - (long) metaBlocks * Blocks.SIZE);
      recordFrom[metaBlocks] = r;
    }
    return r;
  }

  /** {@link #placed} as a ByteBuffer (its position and limit are the caller's to set). */
  ByteBuffer placedBytes(int metaBlocks) {
    ByteBuffer b = recordFromBytes[metaBlocks];
    if (b == null) {
      b = placed(metaBlocks).asByteBuffer();
      recordFromBytes[metaBlocks] = b;
    }
    return b;
  }

  /** The bytes one write of a record placed with {@code metaBlocks} and {@code length} sends. */
  MemorySegment write(int metaBlocks, long length) {
    MemorySegment[] row = writes[metaBlocks];
    if (row == null) {
      row = new MemorySegment[blocks.length + 1];
      writes[metaBlocks] = row;
    }
    int dataBlocks = (int) (length / Blocks.SIZE) - metaBlocks;
    MemorySegment w = row[dataBlocks];
    if (w == null) {
      w = record.asSlice(RecordBuffers.META_BYTES - (long) metaBlocks * Blocks.SIZE, length);
      row[dataBlocks] = w;
    }
    return w;
  }
}
