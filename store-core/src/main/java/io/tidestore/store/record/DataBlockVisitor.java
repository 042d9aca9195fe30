package io.tidestore.store.record;

import java.lang.foreign.MemorySegment;

/**
 * A {@link DeltaVisitor} that sees only the data blocks a record carries, one call per block: each
 * block of a WRITE and each RELOCATE, with the object, its block number, the block's index among
 * the record's data blocks and its crc32c. For readers that check or copy data (replay's
 * verification, the cleaner) rather than apply metadata.
 */
public abstract class DataBlockVisitor implements DeltaVisitor {
  /** One data block of the record. */
  protected abstract void block(long id, int block, int dataIndex, int crc);

  /** Whether to go on; once false, the remaining blocks of the record are skipped. */
  protected boolean wantsMore() {
    return true;
  }

  @Override
  public final void write(
      long id,
      int firstBlock,
      int blocks,
      long endByte,
      MemorySegment crcs,
      long crcOffset,
      int dataIndex) {
    for (int i = 0; i < blocks && wantsMore(); i++) {
      block(id, firstBlock + i, dataIndex + i, crcs.get(Blocks.INT, crcOffset + 4L * i));
    }
  }

  @Override
  public final void relocate(long id, int block, int oldLocation, int crc, int dataIndex) {
    if (wantsMore()) {
      block(id, block, dataIndex, crc);
    }
  }

  @Override
  public void create(long id, long pool, String name) {}

  @Override
  public void truncate(long id, long size) {}

  @Override
  public void remove(long id) {}

  @Override
  public void setXattr(long id, String name, byte[] value) {}

  @Override
  public void removeXattr(long id, String name) {}

  @Override
  public void punch(long id, int firstBlock, int blocks) {}
}
