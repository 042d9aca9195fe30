package io.tidestore.store.engine;

import io.tidestore.store.DataDirLock;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.Superblock;
import io.tidestore.store.record.SuperblockDescriptor;
import io.tidestore.store.shard.ShardFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Formatting a store (mkfs): its geometry rules and defaults, crash-safe creation under the {@link
 * ShardFiles#mkfsMarker marker}, and the daemon's first-start formatting of an empty directory. For
 * one thread; takes the data directory's lock while it works.
 */
public final class StoreFormat {
  /** Shards a default mkfs creates. */
  public static final int DEFAULT_SHARDS = 8;

  /** Bytes per shard a default mkfs creates. */
  public static final long DEFAULT_SHARD_BYTES = 1L << 30;

  private StoreFormat() {}

  /** Where mkfs puts the shards' spaces ({@link StoreLayout}). */
  public enum SpaceLayout {
    /** One file for every shard's space: one fdatasync covers every shard's journal writes. */
    VOLUME,
    /** A file per shard, as stores made before the volume layout: for compatibility tests. */
    FILES;

    /** Parses {@code volume} or {@code files}, as {@code mkfs --layout} takes them. */
    public static SpaceLayout parse(String name) {
      return switch (name) {
        case "volume" -> VOLUME;
        case "files" -> FILES;
        default ->
            throw new IllegalArgumentException(
                "layout must be volume or files, got '" + name + "'");
      };
    }
  }

  /**
   * Segment size that holds the largest single write ({@link ShardStore#MAX_WRITE_BYTES}) with its
   * record metadata (a few blocks; 64 KiB covers the longest object name).
   */
  public static final int SEGMENT_BYTES_FOR_MAX_WRITE = ShardStore.MAX_WRITE_BYTES + (64 << 10);

  /**
   * Segment size mkfs picks for a shard: for shards of 1 GiB and more, one that holds the largest
   * single write ({@link #SEGMENT_BYTES_FOR_MAX_WRITE}, 63 segments in 1 GiB); smaller shards get
   * 1/64 of the shard, a power of two between 256 KiB and 8 MiB, and a smaller write limit ({@link
   * ShardStore#maxWriteBytes}).
   */
  public static int defaultSegmentBytes(long shardBytes) {
    if (shardBytes / 64 >= ShardStore.MAX_WRITE_BYTES) {
      return SEGMENT_BYTES_FOR_MAX_WRITE;
    }
    long target = Math.max(256 << 10, Math.min(8 << 20, shardBytes / 64));
    return (int) Long.highestOneBit(target);
  }

  /**
   * Creates a store in the volume layout: {@code shards} spaces of {@code shardBytes} each in one
   * file, preallocated by writing zeros (not fallocate alone, whose unwritten extents turn every
   * O_DSYNC write into a metadata journal commit), with both superblock copies of each. Refuses a
   * directory that already holds a store; redoes one that an interrupted mkfs left (see {@link
   * #mkfs(Path, int, long, int, Consumer)}).
   */
  public static void mkfs(Path dir, int shards, long shardBytes, int segmentBytes)
      throws IOException {
    mkfs(dir, shards, shardBytes, segmentBytes, note -> {});
  }

  /**
   * {@link #mkfs(Path, int, long, int)}, crash-safe: the {@link ShardFiles#mkfsMarker marker} is
   * made durable before the first shard file is created and removed only once every shard file is
   * complete and synced. A directory holding the marker is what an interrupted mkfs left: its shard
   * files are removed (one line to {@code notes} says so) and the store is created anew. A
   * directory that holds a complete store (shard-0 and no marker) is refused, never wiped.
   */
  public static void mkfs(
      Path dir, int shards, long shardBytes, int segmentBytes, Consumer<String> notes)
      throws IOException {
    mkfs(dir, shards, shardBytes, segmentBytes, SpaceLayout.VOLUME, notes);
  }

  /** {@link #mkfs(Path, int, long, int, Consumer)} in the given layout. */
  public static void mkfs(
      Path dir,
      int shards,
      long shardBytes,
      int segmentBytes,
      SpaceLayout layout,
      Consumer<String> notes)
      throws IOException {
    checkGeometry(shards, shardBytes, segmentBytes);
    try (DataDirLock lock = DataDirLock.acquire(dir)) {
      boolean interrupted = Files.exists(ShardFiles.mkfsMarker(dir));
      if (!interrupted && holdsStore(dir)) {
        throw new IOException(dir + " already holds a store");
      }
      if (interrupted) {
        removeInterruptedMkfs(dir, notes);
      }
      format(dir, shards, shardBytes, segmentBytes, layout);
    }
  }

  /** Throws IllegalArgumentException when mkfs would refuse this geometry. */
  public static void checkGeometry(int shards, long shardBytes, int segmentBytes) {
    if (shards < 1 || shards > 1024) {
      throw new IllegalArgumentException("shards must be 1..1024, got " + shards);
    }
    if (segmentBytes < 64 << 10 || segmentBytes % Blocks.SIZE != 0) {
      throw new IllegalArgumentException(
          "segment size must be a multiple of 4 KiB, >= 64 KiB, got " + segmentBytes);
    }
    long first = (long) SuperblockDescriptor.COPIES * Blocks.SIZE;
    long segments = (shardBytes - first) / segmentBytes;
    if (segments < 8) {
      throw new IllegalArgumentException(
          "shard size "
              + shardBytes
              + " holds only "
              + Math.max(0, segments)
              + " segments of "
              + segmentBytes
              + " bytes; at least 8 are needed");
    }
  }

  /**
   * What the daemon does on first start: mkfs {@code dir} (created if absent) when it holds nothing
   * but the daemon's lock file (and a file system's {@code lost+found}); returns whether it did. A
   * directory that holds a store is left alone; one that holds anything else is refused, so that a
   * wrong --data never formats someone's files. A directory that an interrupted mkfs left (it holds
   * the {@link ShardFiles#mkfsMarker marker}) is redone as {@link #mkfs(Path, int, long, int,
   * Consumer)} does, with this geometry.
   */
  public static boolean mkfsIfEmpty(Path dir, int shards, long shardBytes, int segmentBytes)
      throws IOException {
    return mkfsIfEmpty(dir, shards, shardBytes, segmentBytes, note -> {});
  }

  /** {@link #mkfsIfEmpty(Path, int, long, int)}, telling {@code notes} when it redoes a mkfs. */
  public static boolean mkfsIfEmpty(
      Path dir, int shards, long shardBytes, int segmentBytes, Consumer<String> notes)
      throws IOException {
    checkGeometry(shards, shardBytes, segmentBytes);
    Files.createDirectories(dir);
    try (DataDirLock lock = DataDirLock.acquire(dir)) {
      if (Files.exists(ShardFiles.mkfsMarker(dir))) {
        // Tidestore's own directory (mkfs put the marker there): only its shard files go.
        removeInterruptedMkfs(dir, notes);
        format(dir, shards, shardBytes, segmentBytes, SpaceLayout.VOLUME);
        return true;
      }
      if (holdsStore(dir)) {
        return false;
      }
      refuseUnlessEmpty(dir);
      format(dir, shards, shardBytes, segmentBytes, SpaceLayout.VOLUME);
      return true;
    }
  }

  /**
   * Bytes held by the shard files an interrupted mkfs left in {@code dir} (what redoing that mkfs
   * frees first); 0 when {@code dir} holds no {@link ShardFiles#mkfsMarker marker}.
   */
  public static long interruptedMkfsBytes(Path dir) throws IOException {
    if (!Files.exists(ShardFiles.mkfsMarker(dir))) {
      return 0;
    }
    long bytes = 0;
    for (Path p : shardFiles(dir)) {
      try {
        bytes += Files.size(p);
      } catch (NoSuchFileException e) {
        // Removed meanwhile (this runs without the lock; it is an estimate).
      }
    }
    return bytes;
  }

  /** Every shard space and checkpoint file in {@code dir}. */
  private static List<Path> shardFiles(Path dir) throws IOException {
    try (Stream<Path> entries = Files.list(dir)) {
      return entries
          .filter(p -> ShardFiles.isShardFile(p.getFileName().toString()))
          .filter(Files::isRegularFile)
          .sorted()
          .toList();
    }
  }

  /** Deletes the shard files an interrupted mkfs left in {@code dir}; the marker stays. */
  static void removeInterruptedMkfs(Path dir, Consumer<String> notes) throws IOException {
    List<Path> left = shardFiles(dir);
    notes.accept(
        "an interrupted mkfs left "
            + dir
            + " incomplete ("
            + ShardFiles.MKFS_MARKER
            + " present); removing the "
            + left.size()
            + " shard file(s) it left and formatting again");
    for (Path p : left) {
      Files.delete(p);
    }
    Files.deleteIfExists(dir.resolve(StoreLayout.DEVICE_FILE));
    syncDirectory(dir);
  }

  /**
   * Creates the volume or the shard files under the {@link ShardFiles#mkfsMarker marker}: marker
   * durable, spaces written and synced, their directory entries synced, then the marker removed
   * durably. A crash at any point leaves either a complete store or the marker.
   */
  private static void format(
      Path dir, int shards, long shardBytes, int segmentBytes, SpaceLayout layout)
      throws IOException {
    Path marker = writeMarker(dir);
    long first = (long) SuperblockDescriptor.COPIES * Blocks.SIZE;
    long segments = (shardBytes - first) / segmentBytes;
    long storeId = newStoreId();
    long bytes = first + segments * segmentBytes;
    boolean volume = layout == SpaceLayout.VOLUME;
    List<List<Superblock>> superblocks = new ArrayList<>();
    for (int s = 0; s < shards; s++) {
      long base = volume ? s * bytes : 0; // a space's offsets are absolute in its file
      List<Superblock> copies = new ArrayList<>();
      for (int copy = 0; copy < 2; copy++) {
        copies.add(
            new Superblock(
                s,
                shards,
                base + bytes,
                segmentBytes,
                (int) segments,
                base + first,
                copy,
                0,
                storeId));
      }
      superblocks.add(copies);
    }
    if (volume) {
      ShardFormatter.formatVolume(ShardFiles.volume(dir), superblocks, bytes);
    } else {
      ShardFormatter.format(dir, superblocks, bytes);
    }
    syncDirectory(dir);
    Files.delete(marker);
    syncDirectory(dir);
  }

  /**
   * Refuses a directory that holds anything but the daemon's lock (and a file system's {@code
   * lost+found}), so that a wrong --data never formats someone's files.
   */
  static void refuseUnlessEmpty(Path dir) throws IOException {
    List<String> others;
    try (Stream<Path> entries = Files.list(dir)) {
      others =
          entries
              .map(p -> p.getFileName().toString())
              .filter(n -> !n.equals(DataDirLock.FILE_NAME) && !n.equals("lost+found"))
              .sorted()
              .toList();
    }
    if (!others.isEmpty()) {
      throw new IOException(
          dir
              + " holds no Tidestore store but is not empty ("
              + String.join(", ", others.subList(0, Math.min(5, others.size())))
              + (others.size() > 5 ? ", ..." : "")
              + "); refusing to format it: point --data at an empty or absent directory, or"
              + " run tidestore mkfs there yourself after moving those files away");
    }
  }

  /** Makes the {@link ShardFiles#mkfsMarker marker} durable before anything is formatted. */
  static Path writeMarker(Path dir) throws IOException {
    Path marker = ShardFiles.mkfsMarker(dir);
    try (FileChannel m =
        FileChannel.open(
            marker,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      m.write(
          ByteBuffer.wrap(
              ("tidestore mkfs under way or interrupted (pid "
                      + ProcessHandle.current().pid()
                      + "); rerun tidestore mkfs --data DIR to redo it\n")
                  .getBytes(StandardCharsets.US_ASCII)));
      m.force(true);
    }
    syncDirectory(dir);
    return marker;
  }

  /**
   * Whether {@code dir} holds a complete or interrupted store: a volume, shard files or a device's
   * name.
   */
  static boolean holdsStore(Path dir) {
    return Files.exists(ShardFiles.volume(dir))
        || Files.exists(ShardFiles.data(dir, 0))
        || Files.exists(dir.resolve(StoreLayout.DEVICE_FILE));
  }

  static void syncDirectory(Path dir) throws IOException {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    }
  }

  /**
   * A fresh random store id, never 0: a record with id 0 is a format 1 record, taken as belonging
   * to any store ({@code RecordHeader.belongsTo}).
   */
  static long newStoreId() {
    SecureRandom random = new SecureRandom();
    long id;
    do {
      id = random.nextLong();
    } while (id == 0);
    return id;
  }
}
