package io.tidestore.store;

import io.tidestore.store.nativeio.Libc;
import io.tidestore.store.nativeio.NativeException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Exclusive ownership of a data directory for the life of the process: an {@code flock(2)} on
 * {@code DIR/lock}. The kernel drops the lock when the process dies however it dies, so a kill -9
 * never leaves a stale lock behind (a pid file would). The file also carries the holder's pid so
 * the refusal message can name it.
 *
 * <p>Without native access the lock falls back to {@link FileChannel#tryLock()} (an fcntl record
 * lock), which gives the same guarantee between Tidestore processes.
 */
public final class DataDirLock implements AutoCloseable {
  /** The lock file's name inside a data directory. */
  public static final String FILE_NAME = "lock";

  private final Path path;
  private final FileChannel channel;
  private final FileLock jdkLock;
  private final int fd;

  private DataDirLock(Path path, FileChannel channel, FileLock jdkLock, int fd) {
    this.path = path;
    this.channel = channel;
    this.jdkLock = jdkLock;
    this.fd = fd;
  }

  /**
   * Takes the lock on {@code dataDir} (created if missing) without waiting.
   *
   * @throws DataDirLockedException when another process holds it
   */
  public static DataDirLock acquire(Path dataDir) throws IOException {
    Files.createDirectories(dataDir);
    Path path = dataDir.resolve(FILE_NAME);
    var libc = Libc.get();
    if (libc.isPresent()) {
      int fd = libc.get().open(path.toString(), Libc.O_RDWR | Libc.O_CREAT | Libc.O_CLOEXEC, 0644);
      boolean locked;
      try {
        locked = libc.get().flock(fd, Libc.LOCK_EX | Libc.LOCK_NB);
      } catch (NativeException e) {
        libc.get().close(fd);
        throw e;
      }
      if (!locked) {
        libc.get().close(fd);
        throw new DataDirLockedException(dataDir, readHolder(path));
      }
      FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE);
      writeHolder(channel, ProcessHandle.current().pid());
      return new DataDirLock(path, channel, null, fd);
    }
    FileChannel channel =
        FileChannel.open(
            path, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    FileLock lock = channel.tryLock();
    if (lock == null) {
      channel.close();
      throw new DataDirLockedException(dataDir, readHolder(path));
    }
    writeHolder(channel, ProcessHandle.current().pid());
    return new DataDirLock(path, channel, lock, -1);
  }

  private static void writeHolder(FileChannel channel, long pid) throws IOException {
    channel.truncate(0);
    channel.write(ByteBuffer.wrap((pid + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
    channel.force(false);
  }

  private static String readHolder(Path path) {
    try {
      return Files.readString(path, StandardCharsets.US_ASCII).strip();
    } catch (IOException e) {
      return "";
    }
  }

  /** The lock file. */
  public Path path() {
    return path;
  }

  @Override
  public void close() throws IOException {
    try {
      if (jdkLock != null) {
        jdkLock.release();
      }
      channel.close();
    } finally {
      if (fd >= 0) {
        // Closing the last fd of the open file description releases the flock.
        Libc.get().orElseThrow().close(fd);
      }
    }
  }
}
