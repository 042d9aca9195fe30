package io.tidestore.osd.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.tidestore.osd.nbd.NbdServer;
import io.tidestore.osd.reactor.Reactors;
import io.tidestore.osd.store.StoreOnReactors;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.engine.StoreFormat;
import io.tidestore.store.testing.RequiredTools;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An 8 MiB image striped over two 4 MiB objects of a real store, exported over NBD on real reactors
 * and driven by real clients (qemu-io, nbdcopy); skipped only when a tool is missing.
 */
class ObjectImageNbdTest {
  private static final long SIZE = 8L << 20;

  @TempDir Path dir;

  private record Result(int exit, String output) {}

  private Result run(List<String> command) throws Exception {
    Path log = Files.createTempFile(dir, "out", ".txt");
    Process p =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("timed out: " + command);
    }
    return new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
  }

  @Test
  void realClientsReadAndWriteAnImageOverTheStore() throws Exception {
    RequiredTools.command("qemu-io", "qemu-utils");
    RequiredTools.command("nbdcopy", "libnbd-bin");
    Path data = dir.resolve("store");
    StoreFormat.mkfs(data, 2, 64L << 20, StoreFormat.defaultSegmentBytes(64L << 20));
    try (StoreOnReactors served = StoreOnReactors.open(data, StoreConfig.defaults())) {
      Reactors reactors = served.reactors();
      BlockImage image =
          new ObjectImage(
              served.ops(),
              served.pieces(),
              new ImageLayout("vol1", ImageLayout.DEFAULT_OBJECT_SIZE),
              "vol",
              SIZE,
              false);
      ImageExports exports =
          new ImageExports() {
            @Override
            public CompletionStage<Optional<BlockImage>> open(String name) {
              return CompletableFuture.completedFuture(
                  name.isEmpty() || name.equals("vol") ? Optional.of(image) : Optional.empty());
            }

            @Override
            public CompletionStage<List<String>> names() {
              return CompletableFuture.completedFuture(List.of("vol"));
            }
          };
      try (NbdServer nbd =
          NbdServer.start(
              reactors, InetAddress.getLoopbackAddress(), 0, exports, NbdServer.Limits.DEFAULT)) {
        String url = "nbd://127.0.0.1:" + nbd.address().getPort() + "/vol";
        List<String> io = new ArrayList<>(List.of("qemu-io", "-f", "raw", url));
        for (String c :
            List.of(
                "read -P 0 0 64k", // never written: a hole
                "write -P 0x5a 4160k 64k", // inside object 1
                "write -P 0xa5 4064k 64k", // straddles objects 0 and 1
                "read -P 0xa5 4064k 64k",
                "read -P 0x5a 4160k 64k",
                "write -z 4096k 4k",
                "read -P 0 4096k 4k",
                "discard 4M 4M", // all of object 1: removed
                "read -P 0 4M 256k",
                "read -P 0xa5 4064k 32k",
                "flush")) {
          io.add("-c");
          io.add(c);
        }
        Result result = run(io);
        assertEquals(0, result.exit(), result.output());
        assertFalse(result.output().contains("Pattern verification failed"), result.output());

        byte[] content = new byte[(int) SIZE];
        for (int i = 0; i < content.length; i++) {
          content[i] = (byte) ((i >>> 9) * 31 + i);
        }
        Path source = dir.resolve("source.img");
        Files.write(source, content);
        Result up = run(List.of("nbdcopy", "--request-size=65536", source.toString(), url));
        assertEquals(0, up.exit(), up.output());
        Path back = dir.resolve("back.img");
        Result down = run(List.of("nbdcopy", url, back.toString()));
        assertEquals(0, down.exit(), down.output());
        assertArrayEquals(content, Files.readAllBytes(back));
      }
    }
  }
}
