package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tidestore.store.testing.RequiredTools;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store filled to 100% of its capacity by a real libnbd client (nbdsh's Python binding): writes
 * past it get ENOSPC on a connection that stays usable, another image still reads and overwrites
 * what it holds, and the shards say full but healthy in /status. On the full store TRIM and {@code
 * image rm} succeed (freeing operations may use the cleaner's reserve), the checkpoint and cleaner
 * give the space back, new writes fit again, and fsck finds the store clean.
 *
 * <p>And the file system under the store filling up (a small ext4 on a loop device): a checkpoint
 * that finds no room leaves the previous one valid and is retried, writes go on being acknowledged
 * and survive kill -9, and the retry lands once room is made. The simulated disk covers the
 * checkpoint logic (DeviceFaultTest); this shows it on a real file system's ENOSPC.
 */
class DiskFullIT {
  private static final Duration STOP = Duration.ofSeconds(60);
  private static final long MIB = 1 << 20;

  /** Debian's libnbd binding lives in the system Python, not in one first on PATH. */
  static final Path PYTHON = Path.of("/usr/bin/python3");

  static final Path SCRIPT =
      OsdProcess.ROOT.resolve("integration-tests/src/test/resources/nbd/disk-full.py");

  @TempDir Path dir;

  /**
   * Runs disk-full.py's {@code action} on {@code image} over [start, start + length) with {@code
   * version}; its output, after checking it exited 0 and printed {@code expect}.
   */
  static String nbdsh(
      int nbdPort, String image, String action, long start, long length, int version, String expect)
      throws Exception {
    Map<String, String> env = new HashMap<>();
    env.put("ACTION", action);
    env.put("START", Long.toString(start));
    env.put("LENGTH", Long.toString(length));
    env.put("VERSION", Integer.toString(version));
    ProcessBuilder b =
        new ProcessBuilder(
                PYTHON.toString(),
                "-m",
                "nbd",
                "-u",
                "nbd://127.0.0.1:" + nbdPort + "/" + image,
                "-c",
                Files.readString(SCRIPT))
            .redirectErrorStream(true);
    b.environment().putAll(env);
    Process p = b.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "nbdsh " + action + " did not finish");
    assertEquals(0, p.exitValue(), action + " " + image + ": " + out);
    assertTrue(out.contains(expect), out);
    System.out.println("nbdsh " + action + " " + image + ": " + out.strip());
    return out;
  }

  /** {@code tidestore image --osd 127.0.0.1:PORT ARGS...}, which must exit 0. */
  static void image(int objectPort, String... args) throws Exception {
    String[] all = new String[args.length + 3];
    all[0] = "image";
    all[1] = "--osd";
    all[2] = "127.0.0.1:" + objectPort;
    System.arraycopy(args, 0, all, 3, args.length);
    OsdProcess.run(all);
  }

  @Test
  void fullStoreRefusesWithEnospcFreesThroughTrimAndRmAndStaysConsistent() throws Exception {
    RequiredTools.file(Path.of("/usr/lib/python3/dist-packages/nbd.py"), "python3-libnbd");
    Path data = dir.resolve("osd");
    OsdProcess.run("mkfs", "--data", data.toString(), "--shards", "2", "--shard-size", "64m");
    // --overprovision 0: the capacity is the break-even alone, so a full store also has its
    // journal nearly full and overwrites need the cleaner.
    try (OsdProcess osd =
        OsdProcess.startOsd(
            data, "--cache-size", "0", "--overprovision", "0", "--scrub-interval", "0")) {
      OsdProcess.Ports ports = osd.awaitPorts();
      image(ports.object(), "create", "a", "--size", "128M");
      image(ports.object(), "create", "b", "--size", "64M");
      nbdsh(ports.nbd(), "b", "write", 0, 32 * MIB, 1, "written");

      // 1. A thin image larger than the store fills it: the writes past its capacity get ENOSPC,
      // to the last block, and the connection stays usable.
      nbdsh(ports.nbd(), "a", "fill", 0, 128 * MIB, 1, "connection usable");
      JsonNode status = Status.get(ports.metrics());
      assertEquals("ok", status.get("health").asText(), status.toString());
      for (JsonNode shard : status.get("shards")) {
        assertFalse(shard.get("read_only").asBoolean(), shard.toString());
        assertEquals(
            shard.get("capacity_bytes").asLong(), shard.get("used_bytes").asLong(), "full");
      }
      // The other image reads what it had and overwrites it; new blocks do not fit.
      nbdsh(ports.nbd(), "b", "verify", 0, 32 * MIB, 1, "verified");
      nbdsh(ports.nbd(), "b", "write", 0, 32 * MIB, 2, "written");
      nbdsh(ports.nbd(), "b", "verify", 0, 32 * MIB, 2, "verified");
      nbdsh(ports.nbd(), "b", "refused", 32 * MIB, 4 * MIB, 1, "refused");

      System.out.println("full store: " + Status.get(ports.metrics()).get("shards"));
      // 2. On the full store, TRIM (punches and a whole object) and rm succeed...
      nbdsh(ports.nbd(), "a", "trim", 2 * MIB, 8 * MIB, 0, "trimmed");
      image(ports.object(), "rm", "a");
      // ...and the checkpoint and cleaner turn what they freed into free segments.
      Status.await(
          ports.metrics(),
          s -> {
            for (JsonNode shard : s.get("shards")) {
              long removed =
                  shard.get("capacity_bytes").asLong() - shard.get("used_bytes").asLong();
              if (shard.get("free_bytes").asLong() < removed / 2) {
                return false;
              }
            }
            return true;
          },
          Duration.ofSeconds(30),
          "the space image a held is free segments again");
      nbdsh(ports.nbd(), "b", "write", 32 * MIB, 32 * MIB, 3, "written");
      nbdsh(ports.nbd(), "b", "verify", 0, 32 * MIB, 2, "verified");
      nbdsh(ports.nbd(), "b", "verify", 32 * MIB, 32 * MIB, 3, "verified");
      assertEquals("ok", Status.get(ports.metrics()).get("health").asText());
      osd.signal("TERM");
      assertEquals(0, osd.awaitExit(STOP), osd.output());
    }
    // 3. Exits non-zero on any fault.
    OsdProcess.run("fsck", "--data", data.toString());
  }

  @Test
  void checkpointOnAFullFileSystemKeepsThePreviousOneAndIsRetried() throws Exception {
    RequiredTools.command("losetup", "mount");
    RequiredTools.command("mkfs.ext4", "e2fsprogs");
    RequiredTools.file(Path.of("/usr/lib/python3/dist-packages/nbd.py"), "python3-libnbd");
    try (LoopFileSystem fs =
        LoopFileSystem.create(dir.resolve("fs.img"), dir.resolve("mnt"), 96 * MIB)) {
      Path data = fs.path().resolve("osd");
      OsdProcess.run("mkfs", "--data", data.toString(), "--shards", "2", "--shard-size", "32m");
      String[] flags = {"--cache-size", "0", "--scrub-interval", "0"};
      // A clean stop writes the checkpoints of a small index.
      try (OsdProcess osd = OsdProcess.startOsd(data, flags)) {
        OsdProcess.Ports ports = osd.awaitPorts();
        image(ports.object(), "create", "vol", "--size", "16M");
        nbdsh(ports.nbd(), "vol", "write", 0, 4 * MIB, 1, "written");
        osd.signal("TERM");
        assertEquals(0, osd.awaitExit(STOP), osd.output());
      }
      // The file system fills up: the shard files were written out at mkfs, so the journal
      // never needs a new block; a checkpoint of a grown index does.
      Path filler = fs.path().resolve("filler");
      fs.fill(filler);
      try (OsdProcess osd = OsdProcess.startOsd(data, flags)) {
        OsdProcess.Ports ports = osd.awaitPorts();
        nbdsh(ports.nbd(), "vol", "write", 4 * MIB, 8 * MIB, 1, "written");
        osd.kill9(); // no checkpoint at close: the next mount replays and asks for one
      }
      try (OsdProcess osd = OsdProcess.startOsd(data, flags)) {
        OsdProcess.Ports ports = osd.awaitPorts();
        osd.awaitLine("index checkpoint not written", STOP);
        JsonNode status =
            Status.await(
                ports.metrics(),
                s -> deferredMost(s) >= 2,
                Duration.ofSeconds(30),
                "a checkpoint that found the file system full is tried again");
        assertEquals("ok", status.get("health").asText(), status.toString());
        // Writes are acknowledged meanwhile: the journal holds them.
        nbdsh(ports.nbd(), "vol", "write", 0, 4 * MIB, 2, "written");
        osd.kill9();
      }
      // The previous checkpoint is intact, the journal replays onto it.
      OsdProcess.run("fsck", "--data", data.toString());
      try (OsdProcess osd = OsdProcess.startOsd(data, flags)) {
        OsdProcess.Ports ports = osd.awaitPorts();
        nbdsh(ports.nbd(), "vol", "verify", 0, 4 * MIB, 2, "verified");
        nbdsh(ports.nbd(), "vol", "verify", 4 * MIB, 8 * MIB, 1, "verified");
        osd.awaitLine("index checkpoint not written", STOP);
        Files.delete(filler);
        long deferred =
            osd.lines().stream().filter(l -> l.contains("index checkpoint not written")).count();
        assertTrue(
            osd.awaitCountContaining("written after the retry", (int) deferred, STOP),
            "every deferred checkpoint lands once there is room:\n" + osd.output());
        nbdsh(ports.nbd(), "vol", "write", 12 * MIB, 4 * MIB, 1, "written");
        osd.signal("TERM");
        assertEquals(0, osd.awaitExit(STOP), osd.output());
      }
      String fsck = OsdProcess.run("fsck", "--data", data.toString());
      assertEquals(
          2,
          fsck.split("replay of 0 records", -1).length - 1,
          "a clean stop checkpoints:\n" + fsck);
    }
  }

  /** The most checkpoints any shard deferred for a full file system. */
  private static long deferredMost(JsonNode status) {
    long most = 0;
    for (JsonNode shard : status.get("shards")) {
      most = Math.max(most, shard.get("checkpoints_deferred").asLong());
    }
    return most;
  }
}
