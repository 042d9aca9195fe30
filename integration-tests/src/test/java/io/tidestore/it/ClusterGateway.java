package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.client.ClusterClient;
import io.tidestore.client.ClusterObjectOps;
import io.tidestore.cluster.client.MonAddresses;
import io.tidestore.cluster.wire.LinkSecurity;
import io.tidestore.osd.image.ImageAdmin;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The NBD gateway ({@code tidestore nbd --mon}) of a test cluster as a real process, images made
 * with {@code image create --mon}, and libnbd's nbdcopy to move whole images in and out.
 */
final class ClusterGateway implements AutoCloseable {
  private static final Pattern NBD_PORT = Pattern.compile("nbd=(\\d+)");

  private final OsdProcess process;
  private final int port;

  private ClusterGateway(OsdProcess process, int port) {
    this.process = process;
    this.port = port;
  }

  /** Starts the gateway of {@code monitors} on a free port and waits for its ready line. */
  static ClusterGateway start(String monitors) throws Exception {
    OsdProcess gateway =
        OsdProcess.start("nbd", "--mon", monitors, "--nbd-port", "0", "--op-timeout", "2m");
    try {
      Matcher m =
          NBD_PORT.matcher(
              gateway.awaitLine("tidestore nbd gateway ready", ClusterProcesses.START));
      assertTrue(m.find(), gateway.output());
      return new ClusterGateway(gateway, Integer.parseInt(m.group(1)));
    } catch (AssertionError | RuntimeException e) {
      gateway.close();
      throw e;
    }
  }

  /** {@code image create NAME --size SIZE --mon MONITORS}, which must succeed. */
  static void createImageCommand(String monitors, String name, String size) throws Exception {
    ClusterProcesses.Result created =
        ClusterProcesses.run("image", "create", name, "--size", size, "--mon", monitors);
    assertEquals(0, created.exit(), created.output());
  }

  /**
   * Creates image {@code name} of {@code bytes} in pool rbd as {@link #createImageCommand} does, in
   * this JVM: for a test the command is not what it is about.
   */
  static void createImage(String monitors, String name, long bytes) throws Exception {
    try (ClusterClient client =
        ClusterClient.connect(
            MonAddresses.parse(monitors), LinkSecurity.PLAINTEXT, null, Duration.ofSeconds(60))) {
      new ImageAdmin(new ClusterObjectOps(client, "rbd")).create(name, bytes);
    }
  }

  /** The NBD URI of image {@code name}. */
  String uri(String name) {
    return "nbd://127.0.0.1:" + port + "/" + name;
  }

  /** The whole image {@code name}, copied out with nbdcopy through {@code scratch}. */
  byte[] read(String name, Path scratch) throws Exception {
    Path file = Files.createTempFile(scratch, "out", ".img");
    Files.delete(file);
    nbdcopy(uri(name), file.toString(), scratch);
    byte[] image = Files.readAllBytes(file);
    Files.delete(file);
    return image;
  }

  /** Replaces the whole image {@code name} with {@code image}, with nbdcopy. */
  void write(String name, byte[] image, Path scratch) throws Exception {
    Path file = Files.createTempFile(scratch, "in", ".img");
    Files.write(file, image);
    nbdcopy(file.toString(), uri(name), scratch);
    Files.delete(file);
  }

  /** {@code nbdcopy FROM TO}, which must succeed within 3 minutes. */
  static void nbdcopy(String from, String to, Path scratch) throws Exception {
    exec(scratch, Map.of(), "nbdcopy", from, to);
  }

  /**
   * Runs libnbd's Python {@code script} on image {@code name} (its handle {@code h}, connected with
   * base:allocation asked for), which must succeed; returns what it printed.
   */
  String nbdsh(String name, String script, Path scratch) throws Exception {
    String prelude =
        """
        import os
        h.add_meta_context(nbd.CONTEXT_BASE_ALLOCATION)
        h.connect_uri(os.environ["NBD_URI"])
        """;
    return exec(
        scratch,
        Map.of("NBD_URI", uri(name)),
        "/usr/bin/python3",
        "-m",
        "nbd",
        "-c",
        prelude + script);
  }

  /** The data extents {@code nbdinfo --map} reports for image {@code name}, as "start+length". */
  List<String> dataExtents(String name, Path scratch) throws Exception {
    List<String> data = new ArrayList<>();
    for (String line : exec(scratch, Map.of(), "nbdinfo", "--map", uri(name)).strip().split("\n")) {
      String[] w = line.strip().split("\\s+");
      if (w.length >= 3 && w[2].equals("0")) { // type 0: allocated data
        data.add(w[0] + "+" + w[1]);
      }
    }
    return data;
  }

  /** Runs {@code command}, which must exit 0 within 3 minutes; returns its output. */
  private static String exec(Path scratch, Map<String, String> env, String... command)
      throws Exception {
    Path log = Files.createTempFile(scratch, "tool", ".txt");
    ProcessBuilder b = new ProcessBuilder(command).redirectErrorStream(true);
    b.environment().putAll(env);
    Process p = b.redirectOutput(log.toFile()).start();
    if (!p.waitFor(180, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("timed out: " + List.of(command));
    }
    String output = Files.readString(log);
    assertEquals(0, p.exitValue(), List.of(command) + ": " + output);
    return output;
  }

  @Override
  public void close() throws InterruptedException {
    process.close();
  }
}
