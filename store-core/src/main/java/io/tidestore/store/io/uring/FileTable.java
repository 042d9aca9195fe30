package io.tidestore.store.io.uring;

import io.tidestore.store.io.DirectIo;
import io.tidestore.store.io.Errno;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.nativeio.Libc;
import io.tidestore.store.nativeio.NativeException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;

/**
 * The files an io_uring queue has open, at most {@code maxFiles}, mirrored slot for slot in the
 * ring's registered-file table: registered once as a sparse table of -1 entries
 * (IORING_REGISTER_FILES) and filled as files open (IORING_REGISTER_FILES_UPDATE), so SQEs name a
 * file by its slot with IOSQE_FIXED_FILE and the kernel skips the per-op fd lookup
 * (io_uring_register(2)). When the kernel refuses the table, files keep their slot here and SQEs
 * carry the plain fd. Owner thread only.
 */
final class FileTable {
  private static final System.Logger LOG = System.getLogger(FileTable.class.getName());

  private final Ring ring;
  private final Libc libc;
  private final IoUringFile[] files;
  private final boolean registered;

  /** A struct io_uring_files_update followed by the one fd it points at, reused by every update. */
  private final MemorySegment update;

  private int openFiles;

  FileTable(Ring ring, Libc libc, Arena arena, int maxFiles) {
    this.ring = ring;
    this.libc = libc;
    this.files = new IoUringFile[maxFiles];
    this.update = arena.allocate(ParamsLayout.FILES_UPDATE_SIZE + 8, 8);
    this.registered = registerTable(maxFiles);
  }

  private boolean registerTable(int size) {
    try (Arena temp = Arena.ofConfined()) {
      MemorySegment fds = temp.allocate(ValueLayout.JAVA_INT, size);
      fds.fill((byte) -1);
      int rc =
          ring.sys.ioUringRegister(
              ring.state, ring.fd, IoUringAbi.IORING_REGISTER_FILES, fds.address(), size);
      if (rc < 0) {
        LOG.log(
            System.Logger.Level.INFO,
            "io_uring file registration refused ({0}); using plain fds",
            Errno.name(-rc));
        return false;
      }
      return true;
    }
  }

  /** Whether SQEs can name files by registered slot. */
  boolean registered() {
    return registered;
  }

  /** Opens {@code path} for direct I/O as a file of {@code queue}, in the first free slot. */
  IoUringFile open(IoUringQueue queue, Path path, IoFile.Mode mode) throws IOException {
    if (openFiles >= files.length) {
      throw new IOException("too many open files on this queue: " + files.length);
    }
    int flags =
        switch (mode) {
          case READ -> Libc.O_RDONLY;
          case READ_WRITE -> Libc.O_RDWR;
          case CREATE -> Libc.O_RDWR | Libc.O_CREAT;
        };
    int fd = libc.open(path.toString(), flags | Libc.O_DIRECT | Libc.O_CLOEXEC, 0644);
    int index = -1;
    for (int i = 0; i < files.length; i++) {
      if (files[i] == null) {
        index = i;
        break;
      }
    }
    boolean blockDevice;
    try {
      blockDevice = DirectIo.isBlockDevice(path);
    } catch (IOException | RuntimeException e) {
      libc.close(fd);
      throw e;
    }
    int fixed = registered && updateSlot(index, fd) ? index : -1;
    IoUringFile file = new IoUringFile(queue, path, blockDevice, fd, fixed);
    files[index] = file;
    openFiles++;
    return file;
  }

  /** IORING_REGISTER_FILES_UPDATE of one slot; {@code fd} -1 empties it. */
  private boolean updateSlot(int index, int fd) {
    update.set(ValueLayout.JAVA_INT, 0, index);
    update.set(ValueLayout.JAVA_INT, 4, 0);
    update.set(ValueLayout.JAVA_LONG, 8, update.address() + ParamsLayout.FILES_UPDATE_SIZE);
    update.set(ValueLayout.JAVA_INT, ParamsLayout.FILES_UPDATE_SIZE, fd);
    int rc =
        ring.sys.ioUringRegister(
            ring.state, ring.fd, IoUringAbi.IORING_REGISTER_FILES_UPDATE, update.address(), 1);
    return rc == 1;
  }

  /** Closes an open file with nothing in flight: frees its slot, then its fd. */
  void close(IoUringFile file) {
    for (int i = 0; i < files.length; i++) {
      if (files[i] == file) {
        files[i] = null;
        if (file.fixedIndex >= 0) {
          updateSlot(i, -1);
        }
      }
    }
    openFiles--;
    int fd = file.fd;
    file.fd = -1;
    file.fixedIndex = -1;
    try {
      libc.close(fd);
    } catch (NativeException e) {
      LOG.log(System.Logger.Level.WARNING, "closing " + file.path(), e);
    }
  }

  /** Closes every file still open (the queue is closing, with nothing in flight). */
  void closeAll() {
    for (IoUringFile file : files) {
      if (file != null) {
        close(file);
      }
    }
  }
}
