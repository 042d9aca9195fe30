package io.tidestore.store.engine;

import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.CorruptRecordException;
import io.tidestore.store.record.Superblock;
import io.tidestore.store.shard.ShardFiles;
import io.tidestore.store.shard.ShardSpace;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Where a store's shards live. In a data directory, each shard is the file {@code shard-N} and its
 * checkpoints {@code shard-N.ckpt.0/1} ({@link ShardFiles}). On a raw block device (the data
 * directory then holds only its lock and the file {@value #DEVICE_FILE} naming the device), the
 * device is cut into one region per shard:
 *
 * <pre>
 *   region r = [r * R, (r + 1) * R)
 *   +-------------------------------------------+-----------------+-----------------+
 *   | space: superblock x2, segments (S bytes)   | checkpoint slot | checkpoint slot |
 *   +-------------------------------------------+-----------------+-----------------+
 *   R = S + 2 * slot(S), slot(S) = max(4 MiB, S / 32) rounded up to a block
 * </pre>
 *
 * A shard's superblock records its space's absolute end, so shard 0's (at offset 0) gives S and
 * with it every region: the layout needs nothing but the device. Immutable.
 */
public final class StoreLayout {
  /** The file in a data directory that names the block device holding the store. */
  public static final String DEVICE_FILE = "device";

  /** The smallest checkpoint slot on a device. */
  static final long MIN_SLOT_BYTES = 4L << 20;

  /**
   * A slot is this fraction of its space: 128 bytes of checkpoint per 4 KiB block, enough for a
   * space full of one-block objects with names of about 80 bytes (a checkpoint costs about 48 bytes
   * per object plus its name and 8 per block), at 6% of the device for both slots.
   */
  static final int SLOT_FRACTION = 32;

  private final Path dir;
  private final Path device; // null: files in dir
  private final long spaceBytes; // device only
  private final long regionBytes; // device only

  private StoreLayout(Path dir, Path device, long spaceBytes) {
    this.dir = dir;
    this.device = device;
    this.spaceBytes = spaceBytes;
    this.regionBytes = device == null ? 0 : spaceBytes + 2 * slotBytes(spaceBytes);
  }

  /** The layout of the store in {@code dir}: on the device it names, else files. */
  public static StoreLayout of(Path dir) throws IOException {
    Path device = device(dir);
    if (device == null) {
      return new StoreLayout(dir, null, 0);
    }
    Superblock first = readSuperblock(device, 0);
    return new StoreLayout(dir, device, first.shardBytes());
  }

  /** The device {@code dir} names, or null when its store is made of files. */
  public static Path device(Path dir) throws IOException {
    Path f = dir.resolve(DEVICE_FILE);
    if (!Files.isRegularFile(f)) {
      return null;
    }
    String text = Files.readString(f, StandardCharsets.UTF_8).strip();
    if (text.isEmpty()) {
      throw new IOException(f + " is empty: it should name the store's block device");
    }
    return Path.of(text);
  }

  /** A device layout with {@code spaceBytes} per shard space (mkfs). */
  static StoreLayout forDevice(Path dir, Path device, long spaceBytes) {
    return new StoreLayout(dir, device, spaceBytes);
  }

  /** Checkpoint slot size for a space of {@code spaceBytes}. */
  static long slotBytes(long spaceBytes) {
    return Blocks.roundUp(
        Math.max(MIN_SLOT_BYTES, (spaceBytes + SLOT_FRACTION - 1) / SLOT_FRACTION));
  }

  /** The largest space whose region (space and two slots) fits {@code regionBytes}. */
  static long spaceFor(long regionBytes) {
    long space = (regionBytes * SLOT_FRACTION / (SLOT_FRACTION + 2)) & -Blocks.SIZE;
    while (space > 0 && space + 2 * slotBytes(space) > regionBytes) {
      space -= Blocks.SIZE;
    }
    return space;
  }

  /** Whether the store is on a raw block device. */
  public boolean onDevice() {
    return device != null;
  }

  /** The device, or null for files. */
  public Path deviceOrNull() {
    return device;
  }

  /** Bytes between two shards' regions on a device. */
  long regionBytes() {
    return regionBytes;
  }

  /** Where shard {@code shard} lives. */
  public ShardSpace space(int shard) {
    if (device == null) {
      return ShardSpace.files(dir, shard);
    }
    long base = shard * regionBytes;
    long slot = slotBytes(spaceBytes);
    return new ShardSpace(
        shard,
        device,
        base,
        List.of(
            new ShardSpace.Slot(device, base + spaceBytes, slot, false),
            new ShardSpace.Slot(device, base + spaceBytes + slot, slot, false)));
  }

  /** The newest valid superblock of shard {@code shard}, read with plain file I/O. */
  public Superblock readSuperblock(int shard) throws IOException {
    if (device == null) {
      Path path = ShardFiles.data(dir, shard);
      if (!Files.exists(path)) {
        throw new IOException(
            "no store in "
                + dir
                + ": "
                + path
                + " is missing (run tidestore mkfs --data "
                + dir
                + ")");
      }
      return readSuperblock(path, 0);
    }
    return readSuperblock(device, shard * regionBytes);
  }

  /** The newest valid superblock copy of the space at {@code base} in {@code path}. */
  static Superblock readSuperblock(Path path, long base) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(2 * Blocks.SIZE);
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
      while (buf.hasRemaining() && ch.read(buf, base + buf.position()) > 0) {
        // read both copies
      }
    }
    Superblock best = null;
    StringBuilder why = new StringBuilder();
    CRC32C crc = new CRC32C();
    for (int c = 0; c < 2; c++) {
      try {
        Superblock sb =
            Superblock.decode(
                MemorySegment.ofArray(buf.array()).asSlice((long) c * Blocks.SIZE, Blocks.SIZE),
                crc);
        if (best == null || sb.generation() > best.generation()) {
          best = sb;
        }
      } catch (CorruptRecordException e) {
        why.append(" copy ").append(c).append(": ").append(e.getMessage());
      }
    }
    if (best == null) {
      throw new IOException(
          path + (base == 0 ? "" : " at offset " + base) + " has no valid superblock:" + why);
    }
    return best;
  }
}
