package io.tidestore.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.nativeio.Libc;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DataDirLockTest {
  @TempDir Path dir;

  @Test
  void nativeAccessIsAvailableUnderTheProjectFlags() {
    assertTrue(Libc.get().isPresent(), () -> Libc.unavailableReason().orElse(""));
  }

  @Test
  void secondLockOnTheSameDirectoryIsRefusedAndNamesTheHolder() throws Exception {
    try (DataDirLock first = DataDirLock.acquire(dir)) {
      var refused = assertThrows(DataDirLockedException.class, () -> DataDirLock.acquire(dir));
      assertTrue(
          refused.getMessage().contains("pid " + ProcessHandle.current().pid()),
          refused.getMessage());
      assertEquals(
          ProcessHandle.current().pid() + "\n",
          Files.readString(first.path(), StandardCharsets.US_ASCII));
    }
    try (DataDirLock again = DataDirLock.acquire(dir)) {
      assertTrue(Files.exists(again.path()));
    }
  }

  @Test
  void lockIsAnFlockThatTheFlockToolSees() throws Exception {
    try (DataDirLock lock = DataDirLock.acquire(dir)) {
      assertEquals(1, flockTool(lock.path()), "flock(1) -n must fail while we hold the lock");
    }
    assertEquals(0, flockTool(dir.resolve(DataDirLock.FILE_NAME)), "released on close");
  }

  private static int flockTool(Path file) throws Exception {
    Process p =
        new ProcessBuilder("flock", "-n", "-E", "1", file.toString(), "true")
            .redirectErrorStream(true)
            .start();
    return p.waitFor();
  }

  @Test
  void missingDirectoryIsCreated() throws Exception {
    Path nested = dir.resolve("a/b/osd.0");
    try (DataDirLock lock = DataDirLock.acquire(nested)) {
      assertTrue(Files.isDirectory(nested));
      assertEquals(nested.resolve("lock"), lock.path());
    }
  }
}
