package io.tidestore.osd.ops;

import io.tidestore.cluster.pg.Eversion;
import java.util.Arrays;

/**
 * One member's copy of an object as deep scrub compares it (Ceph's scrub map entry): whether it
 * exists, its size, its version ({@code _v}), a crc32c of its attributes, and one crc32c per {@link
 * #BLOCK} bytes of its data, computed by the member reading its store. Blocks the store refused to
 * read (their stored crc failed, or the device did) are listed apart: such a copy is bad whatever
 * the others hold. Immutable.
 */
public final class ObjectDigest {
  /** Bytes per compared block: the store's block. */
  public static final int BLOCK = 4096;

  private static final int[] NONE = new int[0];

  private final boolean exists;
  private final long size;
  private final Eversion version;
  private final int attrsCrc;
  private final int[] crcs;
  private final int[] unreadable;

  /**
   * @param exists whether the member has the object
   * @param size its size in bytes
   * @param version its {@code _v}, or null when it has none
   * @param attrsCrc crc32c of its attributes (names and values, in name order)
   * @param crcs crc32c of each block's bytes up to the size (0 for an unreadable block); copied
   * @param unreadable ascending indexes of the blocks the store refused to read; copied
   */
  public ObjectDigest(
      boolean exists, long size, Eversion version, int attrsCrc, int[] crcs, int[] unreadable) {
    // The block count in a long: blocksOf's int would take 2^55 bytes for 0 blocks.
    if (size < 0 || crcs.length != size / BLOCK + (size % BLOCK == 0 ? 0 : 1)) {
      throw new IllegalArgumentException(
          crcs.length + " block crcs for an object of " + size + " bytes");
    }
    for (int i = 0; i < unreadable.length; i++) {
      if (unreadable[i] < 0
          || unreadable[i] >= crcs.length
          || (i > 0 && unreadable[i] <= unreadable[i - 1])) {
        throw new IllegalArgumentException("unreadable blocks " + Arrays.toString(unreadable));
      }
    }
    this.exists = exists;
    this.size = size;
    this.version = version;
    this.attrsCrc = attrsCrc;
    this.crcs = crcs.clone();
    this.unreadable = unreadable.length == 0 ? NONE : unreadable.clone();
  }

  /** A member that does not have the object. */
  public static ObjectDigest missing() {
    return new ObjectDigest(false, 0, null, 0, NONE, NONE);
  }

  /** Blocks of an object of {@code size} bytes (the last one may be short). */
  public static int blocksOf(long size) {
    return (int) ((size + BLOCK - 1) / BLOCK);
  }

  public boolean exists() {
    return exists;
  }

  public long size() {
    return size;
  }

  /** The object's version, or null. */
  public Eversion version() {
    return version;
  }

  public int attrsCrc() {
    return attrsCrc;
  }

  public int blocks() {
    return crcs.length;
  }

  public int crc(int block) {
    return crcs[block];
  }

  /** How many blocks the store refused to read. */
  public int unreadableCount() {
    return unreadable.length;
  }

  /** The {@code i}th unreadable block's index. */
  public int unreadable(int i) {
    return unreadable[i];
  }

  public boolean readable(int block) {
    return Arrays.binarySearch(unreadable, block) < 0;
  }

  /** Whether this copy and {@code o} hold the same bytes and attributes, all of them readable. */
  public boolean sameAs(ObjectDigest o) {
    return unreadable.length == 0
        && o.unreadable.length == 0
        && exists == o.exists
        && size == o.size
        && attrsCrc == o.attrsCrc
        && Arrays.equals(crcs, o.crcs);
  }

  @Override
  public String toString() {
    return exists ? "size " + size + " v" + version + " " + crcs.length + " blocks" : "missing";
  }
}
