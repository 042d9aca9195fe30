package io.tidestore.osd.cpu;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the CPU topology from a sysfs tree ({@code /sys/devices/system/cpu} and {@code
 * /sys/devices/system/node}), restricted to an affinity mask. The layout is the kernel's
 * Documentation/admin-guide/cputopology.rst: {@code cpuN/topology/physical_package_id}, {@code
 * core_id}, {@code thread_siblings_list}; {@code cpu/online}; {@code node/nodeM/cpulist}. Taking
 * the root as a parameter lets tests read fixture trees. Stateless.
 */
public final class SysfsTopology {
  private SysfsTopology() {}

  /** The live system, restricted to {@code allowed}. */
  public static CpuTopology read(BitSet allowed) throws IOException {
    return read(Path.of("/sys/devices/system"), allowed);
  }

  /**
   * Reads {@code systemDir/cpu} and {@code systemDir/node}. CPUs that are offline, outside {@code
   * allowed}, or have no topology directory are left out; a missing NUMA tree means node 0.
   */
  public static CpuTopology read(Path systemDir, BitSet allowed) throws IOException {
    Path cpuDir = systemDir.resolve("cpu");
    BitSet online = CpuList.parse(readLine(cpuDir.resolve("online")));
    Map<Integer, Integer> nodeOf = nodes(systemDir.resolve("node"));
    BitSet usable = (BitSet) online.clone();
    usable.and(allowed);
    List<Cpu> cpus = new ArrayList<>();
    for (int id = usable.nextSetBit(0); id >= 0; id = usable.nextSetBit(id + 1)) {
      Path topology = cpuDir.resolve("cpu" + id).resolve("topology");
      if (!Files.isDirectory(topology)) {
        continue;
      }
      int socket = Integer.parseInt(readLine(topology.resolve("physical_package_id")));
      int core = Integer.parseInt(readLine(topology.resolve("core_id")));
      BitSet siblings = CpuList.parse(readLine(topology.resolve("thread_siblings_list")));
      // Position among the usable siblings by id: the lowest usable id of a core is its first
      // thread, so a core whose first sibling is offline or masked out still counts as a core.
      siblings.and(usable);
      int threadIndex = siblings.get(0, id).cardinality();
      // Some kernels report -1 for a package id they do not know; treat as socket 0.
      cpus.add(new Cpu(id, Math.max(socket, 0), nodeOf.getOrDefault(id, 0), core, threadIndex));
    }
    return new CpuTopology(cpus);
  }

  private static Map<Integer, Integer> nodes(Path nodeDir) throws IOException {
    Map<Integer, Integer> nodeOf = new HashMap<>();
    if (!Files.isDirectory(nodeDir)) {
      return nodeOf;
    }
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(nodeDir, "node[0-9]*")) {
      for (Path dir : dirs) {
        int node = Integer.parseInt(dir.getFileName().toString().substring("node".length()));
        Path list = dir.resolve("cpulist");
        if (Files.exists(list)) {
          BitSet cpus = CpuList.parse(readLine(list));
          for (int cpu = cpus.nextSetBit(0); cpu >= 0; cpu = cpus.nextSetBit(cpu + 1)) {
            nodeOf.put(cpu, node);
          }
        }
      }
    }
    return nodeOf;
  }

  private static String readLine(Path file) throws IOException {
    return Files.readString(file, StandardCharsets.US_ASCII).strip();
  }
}
