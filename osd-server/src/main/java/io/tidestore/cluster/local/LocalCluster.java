package io.tidestore.cluster.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What {@code cluster up} wrote to {@code DIR/cluster.json}: the monitors' ids and ports, and every
 * daemon's name, pid, data directory and log, so that {@code cluster down}, {@code status --dir}
 * and a second {@code cluster up} (which reuses the ports and data) find them.
 *
 * @param monitors the monitor list as {@code --mon} takes it
 * @param mons the monitors' ids and ports, in order
 * @param daemons every daemon, monitors first
 * @param certificates the client certificates that reach it ({@code cluster up --tls}), or null for
 *     a plaintext cluster
 */
public record LocalCluster(
    String monitors, List<Mon> mons, List<Daemon> daemons, Path certificates) {
  public static final String FILE = "cluster.json";
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** One monitor's id and port. */
  public record Mon(String id, int port) {}

  /** One daemon process: {@code mon.a}, {@code osd.0}... */
  public record Daemon(String name, long pid, Path data, Path log) {
    /** The live process, if this pid still runs this daemon (not a reused pid). */
    public Optional<ProcessHandle> process() {
      return ProcessHandle.of(pid)
          .filter(ProcessHandle::isAlive)
          .filter(p -> p.info().commandLine().map(c -> c.contains(data.toString())).orElse(true));
    }
  }

  public LocalCluster {
    mons = List.copyOf(mons);
    daemons = List.copyOf(daemons);
  }

  public static LocalCluster read(Path dir) throws IOException {
    Path file = dir.resolve(FILE);
    if (!Files.exists(file)) {
      throw new IOException(file + " does not exist: no `tidestore cluster up --dir " + dir + "`");
    }
    JsonNode root = JSON.readTree(file.toFile());
    List<Mon> mons = new ArrayList<>();
    for (JsonNode m : root.path("mons")) {
      mons.add(new Mon(m.path("id").asText(), m.path("port").asInt()));
    }
    List<Daemon> daemons = new ArrayList<>();
    for (JsonNode d : root.path("daemons")) {
      daemons.add(
          new Daemon(
              d.path("name").asText(),
              d.path("pid").asLong(),
              Path.of(d.path("data").asText()),
              Path.of(d.path("log").asText())));
    }
    String certificates = root.path("certificates").asText("");
    return new LocalCluster(
        root.path("monitors").asText(),
        mons,
        daemons,
        certificates.isEmpty() ? null : Path.of(certificates));
  }

  public void write(Path dir) throws IOException {
    ObjectNode root = JSON.createObjectNode();
    root.put("monitors", monitors);
    if (certificates != null) {
      root.put("certificates", certificates.toString());
    }
    ArrayNode monNodes = root.putArray("mons");
    mons.forEach(m -> monNodes.addObject().put("id", m.id()).put("port", m.port()));
    ArrayNode daemonNodes = root.putArray("daemons");
    for (Daemon d : daemons) {
      daemonNodes
          .addObject()
          .put("name", d.name())
          .put("pid", d.pid())
          .put("data", d.data().toString())
          .put("log", d.log().toString());
    }
    Path temp = dir.resolve(FILE + ".tmp");
    JSON.writeValue(temp.toFile(), root);
    Files.move(
        temp,
        dir.resolve(FILE),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }
}
