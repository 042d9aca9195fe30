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
 * Where a store's shards live. Three layouts:
 *
 * <ul>
 *   <li><b>volume</b> (what mkfs creates): every shard's space is a region of one preallocated
 *       file, {@value #VOLUME_FILE}, shard r at {@code [r * S, (r + 1) * S)}; the checkpoints are
 *       files, {@code shard-N.ckpt.0/1}. One file, so one fdatasync makes the journal writes of
 *       every shard durable ({@link io.tidestore.store.journal.GroupFlush}).
 *   <li><b>files</b> (stores made before the volume layout; still mounted): each shard is the file
 *       {@code shard-N} and its checkpoints {@code shard-N.ckpt.0/1} ({@link ShardFiles}).
 *   <li><b>device</b>: a raw block device (the data directory then holds only its lock and the file
 *       {@value #DEVICE_FILE} naming the device), cut into one region per shard:
 * </ul>
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
 * with it every region: the volume and device layouts need nothing but their file. Immutable.
 */
public final class StoreLayout {
  /** The file in a data directory that names the block device holding the store. */
  public static final String DEVICE_FILE = "device";

  /** The file in a data directory that holds every shard's space (the volume layout). */
  public static final String VOLUME_FILE = ShardFiles.VOLUME;

  /** The smallest checkpoint slot on a device. */
  static final long MIN_SLOT_BYTES = 4L << 20;

  /**
   * A slot is this fraction of its space: 128 bytes of checkpoint per 4 KiB block, enough for a
   * space full of one-block objects with names of about 80 bytes (a checkpoint costs about 48 bytes
   * per object plus its name and 8 per block), at 6% of the device for both slots.
   */
  static final int SLOT_FRACTION = 32;

  private final Path dir;
  private final Path device; // null: files in dir, or the volume
  private final Path volume; // null: files in dir, or a device
  private final long spaceBytes; // device and volume only
  private final long regionBytes; // device and volume only

  private StoreLayout(Path dir, Path device, Path volume, long spaceBytes) {
    this.dir = dir;
    this.device = device;
    this.volume = volume;
    this.spaceBytes = spaceBytes;
    this.regionBytes =
        device != null ? spaceBytes + 2 * slotBytes(spaceBytes) : volume != null ? spaceBytes : 0;
  }

  /** The layout of the store in {@code dir}: on the device it names, its volume, else files. */
  public static StoreLayout of(Path dir) throws IOException {
    Path device = device(dir);
    if (device != null) {
      return new StoreLayout(dir, device, null, readSuperblock(device, 0).shardBytes());
    }
    Path volume = ShardFiles.volume(dir);
    if (Files.exists(volume)) {
      return new StoreLayout(dir, null, volume, readSuperblock(volume, 0).shardBytes());
    }
    return new StoreLayout(dir, null, null, 0);
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
    return new StoreLayout(dir, device, null, spaceBytes);
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

  /** The device, or null for files and the volume. */
  public Path deviceOrNull() {
    return device;
  }

  /**
   * Whether every shard's space is in one file or device, so that one fdatasync covers the journal
   * writes of them all (volume and device layouts).
   */
  public boolean sharedSpaces() {
    return device != null || volume != null;
  }

  /** The layout's name as docs, /status and fsck say it: volume, files or device. */
  public String name() {
    return device != null ? "device" : volume != null ? "volume" : "files";
  }

  /** Bytes between two shards' regions on a device or in the volume. */
  long regionBytes() {
    return regionBytes;
  }

  /** Where shard {@code shard} lives. */
  public ShardSpace space(int shard) {
    if (volume != null) {
      return new ShardSpace(
          shard,
          volume,
          shard * regionBytes,
          List.of(
              new ShardSpace.Slot(ShardFiles.checkpoint(dir, shard, 0), 0, Long.MAX_VALUE, true),
              new ShardSpace.Slot(ShardFiles.checkpoint(dir, shard, 1), 0, Long.MAX_VALUE, true)));
    }
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
    if (volume != null) {
      return readSuperblock(volume, shard * regionBytes);
    }
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
