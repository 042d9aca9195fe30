package io.tidestore.store.cache;

/**
 * Which cached extent holds each block: one entry per block of every published extent, block key to
 * extent slot, so a lookup of any block inside an extent is one probe of a primitive
 * open-addressing map ({@link LongIntHashMap}: no boxing, no allocation). Extents never overlap in
 * it: publish drops the older ones first. Owner thread only.
 */
final class ExtentIndex {
  /** {@link #slotAt} found no extent. */
  static final int MISSING = LongIntHashMap.MISSING;

  private final LongIntHashMap slotByBlock;

  ExtentIndex(int capacityBlocks) {
    this.slotByBlock = new LongIntHashMap(capacityBlocks);
  }

  /** The slot of the extent holding the block {@code key}, or {@link #MISSING}. */
  int slotAt(long key) {
    return slotByBlock.get(key);
  }

  /** Indexes every block of the extent in {@code slot}. */
  void add(long startKey, int blocks, int slot) {
    for (int i = 0; i < blocks; i++) {
      slotByBlock.put(startKey + i, slot);
    }
  }

  /** Unindexes every block of an extent. */
  void remove(long startKey, int blocks) {
    for (int i = 0; i < blocks; i++) {
      slotByBlock.remove(startKey + i);
    }
  }
}
