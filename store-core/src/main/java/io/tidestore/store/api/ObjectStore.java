package io.tidestore.store.api;

import io.tidestore.store.DataDirLock;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.journal.SyncRound;
import io.tidestore.store.memory.MemoryBudget;
import io.tidestore.store.record.Blocks;
import io.tidestore.store.record.CorruptRecordException;
import io.tidestore.store.record.Superblock;
import io.tidestore.store.record.SuperblockDescriptor;
import io.tidestore.store.shard.ShardFiles;
import io.tidestore.store.shard.ShardFormatter;
import io.tidestore.store.shard.ShardMount;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * A store: {@code S} shards fixed at mkfs in one data directory ({@code DIR/shard-N} spaces and
 * {@code DIR/shard-N.ckpt.0/1} index checkpoints), owned by this process through {@link
 * DataDirLock} for as long as the {@code ObjectStore} is open.
 *
 * <p>The daemon opens the store once, then mounts each shard on the reactor thread that will own it
 * ({@link #mountShard}), with an {@link IoQueue} created on that thread. R reactors may own S >= R
 * shards; which reactor owns which shard is the daemon's choice, but which shard holds an object is
 * fixed: {@link #shardOf} ({@link Placement}).
 *
 * <p>Thread safety: {@link #mkfs}, {@link #open} and {@link #close} are for one thread at
 * startup/shutdown; {@link #shardOf} and the getters are safe from any thread; {@link #mountShard}
 * may run concurrently for different shards, each on its owner thread.
 */
public final class ObjectStore implements AutoCloseable {
  /** Shards a default mkfs creates. */
  public static final int DEFAULT_SHARDS = 8;

  /** Bytes per shard a default mkfs creates. */
  public static final long DEFAULT_SHARD_BYTES = 1L << 30;

  private final Path dir;
  private final DataDirLock lock;
  private final int shardCount;
  private final StoreConfig config;
  private final MemoryBudget budget;

  /**
   * One {@link SyncRound} per I/O queue: the shards mounted on one queue (one owner thread) line up
   * their journal syncs. Keyed by identity; a queue's round lives as long as the store.
   */
  private final Map<IoQueue, SyncRound> syncRounds = new IdentityHashMap<>();

  private ObjectStore(
      Path dir, DataDirLock lock, int shardCount, StoreConfig config, MemoryBudget budget) {
    this.dir = dir;
    this.lock = lock;
    this.shardCount = shardCount;
    this.config = config;
    this.budget = budget;
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
   * Creates a store: {@code shards} files of {@code shardBytes} each, preallocated by writing zeros
   * (not fallocate alone, whose unwritten extents turn every O_DSYNC write into a metadata journal
   * commit), with both superblock copies. Refuses a directory that already holds a store; redoes
   * one that an interrupted mkfs left (see {@link #mkfs(Path, int, long, int, Consumer)}).
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
    checkGeometry(shards, shardBytes, segmentBytes);
    try (DataDirLock lock = DataDirLock.acquire(dir)) {
      boolean interrupted = Files.exists(ShardFiles.mkfsMarker(dir));
      if (!interrupted && Files.exists(ShardFiles.data(dir, 0))) {
        throw new IOException(dir + " already holds a store (" + ShardFiles.data(dir, 0) + ")");
      }
      if (interrupted) {
        removeInterruptedMkfs(dir, notes);
      }
      format(dir, shards, shardBytes, segmentBytes);
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
        format(dir, shards, shardBytes, segmentBytes);
        return true;
      }
      if (Files.exists(ShardFiles.data(dir, 0))) {
        return false;
      }
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
      format(dir, shards, shardBytes, segmentBytes);
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
  private static void removeInterruptedMkfs(Path dir, Consumer<String> notes) throws IOException {
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
    syncDirectory(dir);
  }

  /**
   * Creates the shard files under the {@link ShardFiles#mkfsMarker marker}: marker durable, shards
   * written and synced, their directory entries synced, then the marker removed durably. A crash at
   * any point leaves either a complete store or the marker.
   */
  private static void format(Path dir, int shards, long shardBytes, int segmentBytes)
      throws IOException {
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
    long first = (long) SuperblockDescriptor.COPIES * Blocks.SIZE;
    long segments = (shardBytes - first) / segmentBytes;
    long storeId = new SecureRandom().nextLong();
    long bytes = first + segments * segmentBytes;
    List<List<Superblock>> superblocks = new ArrayList<>();
    for (int s = 0; s < shards; s++) {
      List<Superblock> copies = new ArrayList<>();
      for (int copy = 0; copy < 2; copy++) {
        copies.add(
            new Superblock(
                s, shards, bytes, segmentBytes, (int) segments, first, copy, 0, storeId));
      }
      superblocks.add(copies);
    }
    ShardFormatter.format(dir, superblocks, bytes);
    syncDirectory(dir);
    Files.delete(marker);
    syncDirectory(dir);
  }

  private static void syncDirectory(Path dir) throws IOException {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    }
  }

  /** The refusal of {@link #open} on a directory an interrupted mkfs left. */
  private static String interruptedMkfsMessage(Path dir) {
    return "an interrupted mkfs left "
        + dir
        + " incomplete ("
        + ShardFiles.mkfsMarker(dir)
        + " exists); rerun mkfs: tidestore mkfs --data "
        + dir
        + " (or start tidestore osd on it, which formats it with its --shards/--shard-size)";
  }

  /** Opens the store in {@code dir} and takes its lock; its memory is counted but not limited. */
  public static ObjectStore open(Path dir, StoreConfig config) throws IOException {
    return open(dir, config, MemoryBudget.unbounded());
  }

  /**
   * Opens the store in {@code dir} and takes its lock; every shard it mounts charges its I/O
   * buffers and index to {@code budget} (the daemon's {@code --memory-limit}).
   */
  public static ObjectStore open(Path dir, StoreConfig config, MemoryBudget budget)
      throws IOException {
    DataDirLock lock = DataDirLock.acquire(dir);
    try {
      if (Files.exists(ShardFiles.mkfsMarker(dir))) {
        throw new IOException(interruptedMkfsMessage(dir));
      }
      Superblock sb = readSuperblock(dir, 0);
      for (int s = 1; s < sb.shardCount(); s++) {
        Superblock other = readSuperblock(dir, s);
        if (other.storeId() != sb.storeId() || other.shardCount() != sb.shardCount()) {
          throw new IOException(
              ShardFiles.data(dir, s)
                  + " belongs to another store than "
                  + ShardFiles.data(dir, 0));
        }
      }
      return new ObjectStore(dir, lock, sb.shardCount(), config, budget);
    } catch (IOException | RuntimeException e) {
      lock.close();
      throw e;
    }
  }

  /** Reads the newest valid superblock of a shard with plain file I/O. */
  public static Superblock readSuperblock(Path dir, int shard) throws IOException {
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
    ByteBuffer buf = ByteBuffer.allocate(2 * Blocks.SIZE);
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
      while (buf.hasRemaining() && ch.read(buf, buf.position()) > 0) {
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
      throw new IOException(path + " has no valid superblock:" + why);
    }
    return best;
  }

  public Path dir() {
    return dir;
  }

  public int shardCount() {
    return shardCount;
  }

  public StoreConfig config() {
    return config;
  }

  /** The memory budget shards are charged to. */
  public MemoryBudget budget() {
    return budget;
  }

  /** Segment bytes of the store's shards (fixed at mkfs; the same in every shard). */
  public long segmentBytes() throws IOException {
    return readSuperblock(dir, 0).segmentBytes();
  }

  /** The shard that holds {@code key}. */
  public int shardOf(ObjectKey key) {
    return Placement.shardOf(key, shardCount);
  }

  /**
   * Mounts shard {@code shard} on the calling thread, which becomes its owner; {@code queue} must
   * have been created on this thread and stays the caller's. Blocks while it loads the checkpoint
   * and replays the journal.
   */
  public ShardStore mountShard(int shard, IoQueue queue, ExtentCacheHook cache) throws IOException {
    if (shard < 0 || shard >= shardCount) {
      throw new IllegalArgumentException("shard " + shard + " not in 0.." + (shardCount - 1));
    }
    SyncRound round;
    synchronized (syncRounds) {
      round = syncRounds.computeIfAbsent(queue, q -> new SyncRound());
    }
    return ShardMount.mount(dir, shard, queue, config, cache, budget, round);
  }

  /** Releases the data directory; close every mounted shard first. */
  @Override
  public void close() throws IOException {
    lock.close();
  }
}
