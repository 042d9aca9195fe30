package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.testing.LoopDevice;
import io.tidestore.store.testing.RequiredTools;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The daemon with its store on a raw block device (a loop device): {@code osd --device} formats it
 * on first start, serves NBD writes that survive kill -9, and fsck finds it clean.
 */
class DeviceStoreIT {
  private static final Duration STOP = Duration.ofSeconds(60);

  private static String run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), String.join(" ", command) + "\n" + out);
    return out;
  }

  private static String[] osd(Path data, Path device) {
    return new String[] {
      "osd",
      "--data",
      data.toString(),
      "--device",
      device.toString(),
      "--shards",
      "2",
      "--cache-size",
      "32m",
      "--metrics-port",
      "0",
      "--port",
      "0",
      "--nbd-port",
      "0"
    };
  }

  @Test
  void theDaemonFormatsServesAndRecoversAStoreOnARawDevice() throws Exception {
    RequiredTools.command("qemu-io", "qemu-utils");
    Path scratch = Files.createTempDirectory(Path.of("/var/tmp"), "device-it");
    try (LoopDevice loop = LoopDevice.create(scratch, 256L << 20)) {
      Path data = scratch.resolve("data");
      String nbd;
      try (OsdProcess osd = OsdProcess.start(osd(data, loop.path()))) {
        OsdProcess.Ports ports = osd.awaitPorts();
        assertTrue(
            osd.output().contains("created an object store on " + loop.path()), osd.output());
        OsdProcess.run(
            "image", "--osd", "127.0.0.1:" + ports.object(), "create", "d", "--size", "64M");
        nbd = "nbd://127.0.0.1:" + ports.nbd() + "/d";
        run("qemu-io", "-f", "raw", nbd, "-c", "write -P 0x6b 4M 5M", "-c", "write -P 7 63M 1M");
        osd.kill9();
      }
      try (OsdProcess osd = OsdProcess.start(osd(data, loop.path()))) {
        OsdProcess.Ports ports = osd.awaitPorts();
        assertFalse(osd.output().contains("created an object store"), "formatted again");
        String out =
            run(
                "qemu-io",
                "-f",
                "raw",
                "nbd://127.0.0.1:" + ports.nbd() + "/d",
                "-c",
                "read -P 0x6b 4M 5M",
                "-c",
                "read -P 7 63M 1M",
                "-c",
                "read -P 0 0 4M");
        assertFalse(out.contains("Pattern verification failed"), out);
        osd.signal("TERM");
        assertEquals(0, osd.awaitExit(STOP), osd.output());
      }
      try (OsdProcess fsck = OsdProcess.start("fsck", "--data", data.toString())) {
        assertEquals(0, fsck.awaitExit(STOP), fsck.output());
        assertTrue(fsck.output().contains("fsck: clean"), fsck.output());
      }
      // The data directory names the device: another one is refused, not formatted.
      Path other = Files.createFile(scratch.resolve("not-this-one"));
      try (OsdProcess wrong = OsdProcess.start(osd(data, other))) {
        assertEquals(1, wrong.awaitExit(STOP), wrong.output());
        assertTrue(wrong.output().contains("not on " + other), wrong.output());
      }
    } finally {
      try (var files = Files.walk(scratch)) {
        for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }
}
