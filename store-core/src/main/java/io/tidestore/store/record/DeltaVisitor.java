package io.tidestore.store.record;

import java.lang.foreign.MemorySegment;

/**
 * Receives decoded deltas in record order ({@link DeltaReader}). {@code dataIndex} is the position
 * of the delta's first data block among the record's data blocks.
 */
public interface DeltaVisitor {
  void create(long id, long pool, String name);

  /** Block {@code i}'s crc is {@code crcs.get(Blocks.INT, crcOffset + 4L * i)}. */
  void write(
      long id,
      int firstBlock,
      int blocks,
      long endByte,
      MemorySegment crcs,
      long crcOffset,
      int dataIndex);

  void truncate(long id, long size);

  void remove(long id);

  void setXattr(long id, String name, byte[] value);

  void removeXattr(long id, String name);

  void relocate(long id, int block, int oldLocation, int crc, int dataIndex);

  /** Blocks {@code [firstBlock, firstBlock + blocks)} of object {@code id} become holes. */
  void punch(long id, int firstBlock, int blocks);
}
