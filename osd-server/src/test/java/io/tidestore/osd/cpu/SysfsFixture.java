package io.tidestore.osd.cpu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Builds a sysfs-shaped tree ({@code cpu/}, {@code node/}) under a temporary directory. */
final class SysfsFixture {
  private final Path root;

  SysfsFixture(Path root) throws IOException {
    this.root = root;
    Files.createDirectories(root.resolve("cpu"));
  }

  Path root() {
    return root;
  }

  SysfsFixture online(String list) throws IOException {
    Files.writeString(root.resolve("cpu/online"), list + "\n");
    return this;
  }

  SysfsFixture cpu(int id, int socket, int core, String siblings) throws IOException {
    Path topology = Files.createDirectories(root.resolve("cpu/cpu" + id + "/topology"));
    Files.writeString(topology.resolve("physical_package_id"), socket + "\n");
    Files.writeString(topology.resolve("core_id"), core + "\n");
    Files.writeString(topology.resolve("thread_siblings_list"), siblings + "\n");
    return this;
  }

  /** A CPU directory without topology, as the kernel shows an offline CPU. */
  SysfsFixture offlineCpu(int id) throws IOException {
    Files.createDirectories(root.resolve("cpu/cpu" + id));
    return this;
  }

  SysfsFixture node(int node, String cpulist) throws IOException {
    Path dir = Files.createDirectories(root.resolve("node/node" + node));
    Files.writeString(dir.resolve("cpulist"), cpulist + "\n");
    return this;
  }
}
