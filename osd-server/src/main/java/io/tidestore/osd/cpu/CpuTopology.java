package io.tidestore.osd.cpu;

import java.util.BitSet;
import java.util.List;

/**
 * The CPUs this process may run on, with their sockets, NUMA nodes, cores and sibling positions.
 * Immutable.
 *
 * @param cpus usable CPUs (online and in the affinity mask), ascending by id
 */
public record CpuTopology(List<Cpu> cpus) {
  public CpuTopology {
    cpus = List.copyOf(cpus);
  }

  /** The usable CPU ids. */
  public BitSet ids() {
    BitSet ids = new BitSet();
    for (Cpu cpu : cpus) {
      ids.set(cpu.id());
    }
    return ids;
  }

  /** How many distinct physical cores the usable CPUs sit on. */
  public long physicalCores() {
    return cpus.stream().mapToLong(Cpu::physicalCore).distinct().count();
  }

  /** E.g. {@code 4 CPUs (0-3) on 2 cores, 1 socket, 1 NUMA node}. */
  public String describe() {
    return cpus.size()
        + " CPUs ("
        + CpuList.format(ids())
        + ") on "
        + physicalCores()
        + " cores, "
        + cpus.stream().mapToInt(Cpu::socket).distinct().count()
        + " socket(s), "
        + cpus.stream().mapToInt(Cpu::node).distinct().count()
        + " NUMA node(s)";
  }
}
