package io.tidestore.osd.nbd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.osd.cpu.CpuAllocator;
import io.tidestore.osd.reactor.Reactors;
import io.tidestore.osd.reactor.Transport;
import io.tidestore.store.testing.RequiredTools;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real NBD clients (libnbd's nbdinfo and nbdcopy, QEMU's qemu-io; Debian packages libnbd-bin and
 * qemu-utils) against the real server on 127.0.0.1. Each test is skipped only when its tool is not
 * installed.
 */
class NbdExternalClientTest {
  @TempDir Path dir;
  private Reactors reactors;
  private NbdServer server;
  private final MemoryImage disk = new MemoryImage("disk", 4 << 20, false);
  private final MemoryImage other = new MemoryImage("other", 1 << 20, true);

  @BeforeEach
  void start() throws Exception {
    reactors =
        Reactors.start(
            Transport.EPOLL,
            new int[] {CpuAllocator.UNPINNED, CpuAllocator.UNPINNED},
            Optional.empty());
    server =
        NbdServer.start(
            reactors,
            InetAddress.getLoopbackAddress(),
            0,
            new MemoryExports("disk", disk, other),
            NbdServer.Limits.DEFAULT);
  }

  @AfterEach
  void stop() {
    server.close();
    reactors.close();
  }

  private String url(String export) {
    return "nbd://127.0.0.1:" + server.address().getPort() + "/" + export;
  }

  private record Result(int exit, String output) {}

  private Result run(String... command) throws Exception {
    Path log = Files.createTempFile(dir, "out", ".txt");
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IOException("timed out: " + List.of(command));
    }
    return new Result(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
  }

  @Test
  void nbdinfoListsExportsWithSizesAndBlockSizes() throws Exception {
    RequiredTools.command("nbdinfo", "libnbd-bin");
    Result list = run("nbdinfo", "--list", url(""));
    assertEquals(0, list.exit(), list.output());
    assertTrue(list.output().contains("export=\"disk\""), list.output());
    assertTrue(list.output().contains("export=\"other\""), list.output());
    assertTrue(list.output().contains("export-size: 4194304"), list.output());
    assertTrue(list.output().contains("block_size_preferred: 4096"), list.output());
    assertTrue(list.output().contains("can_multi_conn: true"), list.output());

    Result json = run("nbdinfo", "--json", url("other"));
    assertEquals(0, json.exit(), json.output());
    assertTrue(json.output().contains("\"export-size\": 1048576"), json.output());
    assertTrue(json.output().contains("\"is_read_only\": true"), json.output());

    Result missing = run("nbdinfo", url("missing"));
    assertTrue(missing.exit() != 0, missing.output());
    // The server kept serving after refusing that export.
    assertEquals(0, run("nbdinfo", "--size", url("disk")).exit());
  }

  @Test
  void nbdcopyRoundTripsData() throws Exception {
    RequiredTools.command("nbdcopy", "libnbd-bin");
    byte[] data = new byte[4 << 20];
    for (int i = 0; i < data.length; i++) {
      data[i] = (byte) (i * 31 + (i >>> 12));
    }
    Path source = dir.resolve("source.img");
    Files.write(source, data);
    Result up = run("nbdcopy", source.toString(), url("disk"));
    assertEquals(0, up.exit(), up.output());
    assertTrue(Arrays.equals(data, disk.bytes()), "image differs from what nbdcopy wrote");
    Path back = dir.resolve("back.img");
    Result down = run("nbdcopy", url("disk"), back.toString());
    assertEquals(0, down.exit(), down.output());
    assertTrue(Arrays.equals(data, Files.readAllBytes(back)), "read back differs");
  }

  @Test
  void qemuIoWritesReadsZeroesAndSeesErrors() throws Exception {
    RequiredTools.command("qemu-io", "qemu-utils");
    List<String> command = new ArrayList<>(List.of("qemu-io", "-f", "raw", url("disk")));
    for (String c :
        List.of(
            "write -P 0xab 0 64k",
            "write -P 0xcd 1000 3000",
            "write -z 8k 4k",
            "discard 16k 4k",
            "flush",
            "read -P 0xab 0 1000",
            "read -P 0xcd 1000 3000",
            "read -P 0 8k 4k",
            "read -P 0 16k 4k")) {
      command.add("-c");
      command.add(c);
    }
    Result result = run(command.toArray(String[]::new));
    assertEquals(0, result.exit(), result.output());
    assertTrue(!result.output().contains("Pattern verification failed"), result.output());
    assertEquals((byte) 0xab, disk.bytes()[20 << 10]);

    Result readOnly = run("qemu-io", "-f", "raw", url("other"), "-c", "write 0 4k");
    assertTrue(
        readOnly.output().toLowerCase(java.util.Locale.ROOT).contains("read-only")
            || readOnly.output().contains("Operation not permitted")
            || readOnly.exit() != 0,
        readOnly.output());
  }
}
