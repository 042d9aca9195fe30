package io.tidestore.store.engine;

import io.tidestore.store.DataDirLock;
import io.tidestore.store.io.DirectIo;
import io.tidestore.store.nativeio.Libc;
import io.tidestore.store.nativeio.NativeException;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.Superblock;
import io.tidestore.store.record.SuperblockDescriptor;
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
import java.util.Optional;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * mkfs of a store on a whole raw block device (as SeaStore and BlueStore own their disks): the
 * device is cut into one region per shard ({@link StoreLayout}), sized from the device; it is
 * discarded first where the device supports it, then each shard's two superblock copies are written
 * and each checkpoint slot's header is zeroed. Nothing else needs clearing: replay only takes
 * records that carry this store's id (format 2). The data directory keeps only its lock and the
 * file naming the device. Crash-safe as {@link StoreFormat#mkfs} is, under the same marker.
 */
public final class DeviceFormat {
  private DeviceFormat() {}

  /**
   * Creates a store of {@code shards} shards on {@code device}, named in {@code dir}; segments of
   * {@code segmentBytes}, or the default for the shard size when 0. Refuses a directory that holds
   * a store, a path that is not a block device, and a device another program holds open exclusively
   * (mounted, say).
   */
  public static void mkfs(
      Path dir, Path device, int shards, int segmentBytes, Consumer<String> notes)
      throws IOException {
    Files.createDirectories(dir);
    try (DataDirLock lock = DataDirLock.acquire(dir)) {
      boolean interrupted = Files.exists(ShardFiles.mkfsMarker(dir));
      if (!interrupted && StoreFormat.holdsStore(dir)) {
        throw new IOException(dir + " already holds a store");
      }
      if (interrupted) {
        StoreFormat.removeInterruptedMkfs(dir, notes);
      }
      format(dir, device, shards, segmentBytes, notes);
    }
  }

  /**
   * What the daemon does on first start with {@code --device}: formats the device when {@code dir}
   * is empty or absent (or an interrupted mkfs left it); returns whether it did. A directory whose
   * store is on {@code device} is left alone; one whose store is elsewhere, or that holds anything
   * else, is refused.
   */
  public static boolean mkfsIfEmpty(Path dir, Path device, int shards, Consumer<String> notes)
      throws IOException {
    Files.createDirectories(dir);
    try (DataDirLock lock = DataDirLock.acquire(dir)) {
      if (Files.exists(ShardFiles.mkfsMarker(dir))) {
        StoreFormat.removeInterruptedMkfs(dir, notes);
        format(dir, device, shards, 0, notes);
        return true;
      }
      if (StoreFormat.holdsStore(dir)) {
        Path named = StoreLayout.device(dir);
        if (named == null) {
          throw new IOException(
              dir + " holds a store of files, not one on " + device + ": drop --device");
        }
        if (!Files.isSameFile(named, device)) {
          throw new IOException(
              dir + " holds the store on " + named + ", not on " + device + " (--device)");
        }
        return false;
      }
      StoreFormat.refuseUnlessEmpty(dir);
      format(dir, device, shards, 0, notes);
      return true;
    }
  }

  private static void format(
      Path dir, Path device, int shards, int segmentBytes, Consumer<String> notes)
      throws IOException {
    if (!Files.exists(device) || !DirectIo.isBlockDevice(device)) {
      throw new IOException(device + " is not a block device (--device names one, e.g. /dev/sdb)");
    }
    Path real = device.toRealPath();
    long size;
    try (FileChannel ch = FileChannel.open(real, StandardOpenOption.READ)) {
      size = ch.size();
    }
    if (shards < 1 || shards > 1024) {
      throw new IllegalArgumentException("shards must be 1..1024, got " + shards);
    }
    long space = StoreLayout.spaceFor((size / shards) & -Blocks.SIZE);
    int segment = segmentBytes > 0 ? segmentBytes : StoreFormat.defaultSegmentBytes(space);
    StoreFormat.checkGeometry(shards, space, segment);
    exclusiveCheck(real);
    Path marker = StoreFormat.writeMarker(dir);
    discard(real, size, notes);
    StoreLayout layout = StoreLayout.forDevice(dir, real, space);
    long storeId = StoreFormat.newStoreId();
    long first = (long) SuperblockDescriptor.COPIES * Blocks.SIZE;
    int segments = (int) ((space - first) / segment);
    CRC32C crc = new CRC32C();
    ByteBuffer block = ByteBuffer.allocate(Blocks.SIZE);
    try (FileChannel ch = FileChannel.open(real, StandardOpenOption.WRITE)) {
      for (int s = 0; s < shards; s++) {
        ShardSpace sp = layout.space(s);
        for (int copy = 0; copy < 2; copy++) {
          block.clear();
          java.util.Arrays.fill(block.array(), (byte) 0);
          new Superblock(
                  s,
                  shards,
                  sp.base() + space,
                  segment,
                  segments,
                  sp.base() + first,
                  copy,
                  0,
                  storeId)
              .encode(MemorySegment.ofArray(block.array()), crc);
          writeFully(ch, block, sp.base() + (long) copy * Blocks.SIZE);
        }
        for (ShardSpace.Slot slot : sp.slots()) {
          block.clear();
          java.util.Arrays.fill(block.array(), (byte) 0);
          writeFully(ch, block, slot.offset());
        }
      }
      ch.force(true);
    }
    Path named = dir.resolve(StoreLayout.DEVICE_FILE);
    Files.writeString(named, real + "\n", StandardCharsets.UTF_8);
    try (FileChannel f = FileChannel.open(named, StandardOpenOption.WRITE)) {
      f.force(true);
    }
    StoreFormat.syncDirectory(dir);
    Files.delete(marker);
    StoreFormat.syncDirectory(dir);
    notes.accept(
        String.format(
            "formatted %s (%d bytes): %d shards of %d bytes, %d segments of %d bytes each",
            real, size, shards, space, segments, segment));
  }

  private static void writeFully(FileChannel ch, ByteBuffer buf, long at) throws IOException {
    buf.rewind();
    while (buf.hasRemaining()) {
      ch.write(buf, at + buf.position());
    }
  }

  /**
   * Refuses a device that is mounted or otherwise held exclusively: Linux fails an O_EXCL open of a
   * block device in use with EBUSY.
   */
  private static void exclusiveCheck(Path device) throws IOException {
    Optional<Libc> libc = Libc.get();
    if (libc.isEmpty()) {
      return; // without native access the check is skipped; the daemon's open still fails later
    }
    try {
      int fd = libc.get().open(device.toString(), Libc.O_RDONLY | Libc.O_EXCL | Libc.O_CLOEXEC, 0);
      libc.get().close(fd);
    } catch (NativeException e) {
      throw new IOException(device + " is in use (mounted?): " + e.getMessage(), e);
    }
  }

  /** Discards the whole device (TRIM) where supported: a fresh store then costs the SSD nothing. */
  private static void discard(Path device, long size, Consumer<String> notes) {
    Optional<Libc> libc = Libc.get();
    if (libc.isEmpty()) {
      notes.accept("no discard (native access unavailable)");
      return;
    }
    try {
      int fd = libc.get().open(device.toString(), Libc.O_RDWR | Libc.O_CLOEXEC, 0);
      try {
        int errno = libc.get().discard(fd, 0, size);
        notes.accept(
            errno == 0
                ? "discarded " + device
                : "no discard on " + device + ": " + libc.get().strerror(errno));
      } finally {
        libc.get().close(fd);
      }
    } catch (NativeException e) {
      notes.accept("no discard on " + device + ": " + e.getMessage());
    }
  }
}
