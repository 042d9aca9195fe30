package io.tidestore.it;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A small ext4 file system on a loop device, mounted for a test (which must run as root): a file
 * system that can really fill up under a daemon. {@link #close} unmounts it and frees the device.
 */
final class LoopFileSystem implements AutoCloseable {
  private final Path mountPoint;
  private final String device;
  private boolean mounted;

  private LoopFileSystem(Path mountPoint, String device) {
    this.mountPoint = mountPoint;
    this.device = device;
  }

  /**
   * A {@code bytes} ext4 (4 KiB blocks, no blocks reserved for root: the daemon runs as root and
   * must meet the same full file system as the filler) in the file {@code image}, mounted at {@code
   * mountPoint}.
   */
  static LoopFileSystem create(Path image, Path mountPoint, long bytes) throws Exception {
    try (FileChannel f =
        FileChannel.open(image, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      f.truncate(bytes);
      f.write(ByteBuffer.allocate(1), bytes - 1);
    }
    String device = run("losetup", "--find", "--show", image.toString()).strip();
    LoopFileSystem fs = new LoopFileSystem(mountPoint, device);
    try {
      run("mkfs.ext4", "-q", "-F", "-b", "4096", "-m", "0", device);
      Files.createDirectories(mountPoint);
      run("mount", "-t", "ext4", device, mountPoint.toString());
      fs.mounted = true;
      return fs;
    } catch (Exception | AssertionError e) {
      fs.close();
      throw e;
    }
  }

  Path path() {
    return mountPoint;
  }

  /**
   * Writes {@code file} until the file system has no block left (ENOSPC), first in 1 MiB writes,
   * then in 4 KiB ones; returns its size.
   */
  long fill(Path file) throws IOException {
    try (FileChannel f =
        FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      for (int size : new int[] {1 << 20, 4096}) {
        ByteBuffer zeros = ByteBuffer.allocate(size);
        while (true) {
          zeros.clear();
          try {
            long at = f.size();
            while (zeros.hasRemaining()) {
              f.write(zeros, at + zeros.position());
            }
            f.force(false); // delayed allocation: make the blocks real now
          } catch (IOException e) {
            if (e.getMessage() == null || !e.getMessage().contains("No space left")) {
              throw e;
            }
            break;
          }
        }
      }
      return f.size();
    }
  }

  private static String run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new AssertionError(List.of(command) + " failed: " + out);
    }
    return out;
  }

  /**
   * Unmounts, waiting up to 30 s while the file system is busy: a daemon just killed may still hold
   * its files (an io_uring ring drops them in the kernel after the process is gone). Still busy
   * then, it is detached lazily, so a failed test never leaves a mount behind.
   */
  private void unmount() throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      Process p =
          new ProcessBuilder("umount", mountPoint.toString()).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (p.waitFor() == 0) {
        return;
      }
      if (!out.contains("busy") || System.nanoTime() > deadline) {
        run("umount", "--lazy", mountPoint.toString());
        return;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // the kernel's release, no event
    }
  }

  @Override
  public void close() throws Exception {
    try {
      if (mounted) {
        mounted = false;
        unmount();
      }
    } finally {
      run("losetup", "-d", device);
    }
  }
}
