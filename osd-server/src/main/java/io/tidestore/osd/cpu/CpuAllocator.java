package io.tidestore.osd.cpu;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Chooses one CPU per reactor under a {@link CpuPolicy}. Stateless. */
public final class CpuAllocator {
  /** Reactor not pinned. */
  public static final int UNPINNED = -1;

  private CpuAllocator() {}

  /**
   * Returns {@code reactors} CPU ids, reactor i on element i; {@link #UNPINNED} for every reactor
   * under {@link CpuPolicy#NONE} or when there are no usable CPUs. With more reactors than CPUs the
   * order wraps around (two reactors share a CPU; the caller logs it).
   *
   * <p>Balanced order: all first threads of cores before any second thread ("siblings last");
   * within one thread rank, CPUs are taken round-robin over NUMA nodes (sockets when there is no
   * NUMA information, as nodes then are all 0), so reactors 0 and 1 land on different nodes.
   */
  public static int[] assign(CpuTopology topology, CpuPolicy policy, int reactors) {
    if (reactors <= 0) {
      throw new IllegalArgumentException("reactors must be positive: " + reactors);
    }
    int[] cpus = new int[reactors];
    List<Cpu> order = policy == CpuPolicy.NONE ? List.of() : balancedOrder(topology);
    for (int i = 0; i < reactors; i++) {
      cpus[i] = order.isEmpty() ? UNPINNED : order.get(i % order.size()).id();
    }
    return cpus;
  }

  /** Every usable CPU in balanced preference order. */
  static List<Cpu> balancedOrder(CpuTopology topology) {
    // rank -> domain (node, socket) -> CPUs in id order
    Map<Integer, Map<Long, List<Cpu>>> byRank = new TreeMap<>();
    for (Cpu cpu : topology.cpus()) {
      long domain = ((long) cpu.node() << 32) | cpu.socket();
      byRank
          .computeIfAbsent(cpu.threadIndex(), r -> new TreeMap<>())
          .computeIfAbsent(domain, d -> new ArrayList<>())
          .add(cpu);
    }
    List<Cpu> order = new ArrayList<>(topology.cpus().size());
    for (Map<Long, List<Cpu>> domains : byRank.values()) {
      List<List<Cpu>> queues = new ArrayList<>(domains.values());
      for (List<Cpu> queue : queues) {
        queue.sort(Comparator.comparingInt(Cpu::core).thenComparingInt(Cpu::id));
      }
      boolean took = true;
      for (int i = 0; took; i++) {
        took = false;
        for (List<Cpu> queue : queues) {
          if (i < queue.size()) {
            order.add(queue.get(i));
            took = true;
          }
        }
      }
    }
    return order;
  }
}
