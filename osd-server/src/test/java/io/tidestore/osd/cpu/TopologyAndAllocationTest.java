package io.tidestore.osd.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TopologyAndAllocationTest {
  @TempDir Path dir;

  private static BitSet all() {
    return CpuList.parse("0-" + CpuList.MAX_CPU);
  }

  private static List<Integer> order(CpuTopology topology) {
    return CpuAllocator.balancedOrder(topology).stream().map(Cpu::id).toList();
  }

  /** Two sockets, 4 cores each, 2 threads per core; Intel numbering (siblings are id + 8). */
  private SysfsFixture twoSocketsWithHyperthreads() throws Exception {
    SysfsFixture sys = new SysfsFixture(dir).online("0-15");
    for (int cpu = 0; cpu < 16; cpu++) {
      int first = cpu % 8;
      sys.cpu(cpu, first / 4, first % 4, first + "," + (first + 8));
    }
    return sys.node(0, "0-3,8-11").node(1, "4-7,12-15");
  }

  @Test
  void twoSocketsSpreadOverNodesSiblingsLast() throws Exception {
    CpuTopology topology = SysfsTopology.read(twoSocketsWithHyperthreads().root(), all());
    assertEquals(16, topology.cpus().size());
    assertEquals(8, topology.physicalCores());
    assertEquals(new Cpu(12, 1, 1, 0, 1), topology.cpus().get(12));
    assertEquals(List.of(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15), order(topology));
    assertArrayEquals(new int[] {0, 4, 1}, CpuAllocator.assign(topology, CpuPolicy.BALANCED, 3));
  }

  @Test
  void oneSocketWithoutHyperthreadsAndWithoutNuma() throws Exception {
    SysfsFixture sys = new SysfsFixture(dir).online("0-3");
    for (int cpu = 0; cpu < 4; cpu++) {
      sys.cpu(cpu, 0, cpu, Integer.toString(cpu));
    }
    CpuTopology topology = SysfsTopology.read(sys.root(), all());
    assertEquals(List.of(0, 1, 2, 3), order(topology));
    assertEquals(0, topology.cpus().get(3).node());
    // More reactors than CPUs wrap around.
    assertArrayEquals(
        new int[] {0, 1, 2, 3, 0, 1}, CpuAllocator.assign(topology, CpuPolicy.BALANCED, 6));
  }

  @Test
  void offlineCpusAreSkipped() throws Exception {
    SysfsFixture sys = new SysfsFixture(dir).online("0-1,3");
    sys.cpu(0, 0, 0, "0").cpu(1, 0, 1, "1").offlineCpu(2).cpu(3, 0, 3, "3");
    CpuTopology topology = SysfsTopology.read(sys.root(), all());
    assertEquals(List.of(0, 1, 3), order(topology));
    assertEquals("0-1,3", CpuList.format(topology.ids()));
  }

  @Test
  void restrictedMaskCountsAMaskedSiblingsCoreAsACore() throws Exception {
    // One socket, 4 cores with 2 threads, Linux AMD-style numbering: cpu i and i+4 are siblings.
    SysfsFixture sys = new SysfsFixture(dir).online("0-7");
    for (int cpu = 0; cpu < 8; cpu++) {
      int core = cpu % 4;
      sys.cpu(cpu, 0, core, core + "," + (core + 4));
    }
    // taskset -c 2,5,6: cpu 6 shares core 2 with cpu 2; cpu 5's sibling 1 is masked out.
    CpuTopology topology = SysfsTopology.read(sys.root(), CpuList.parse("2,5,6"));
    // First threads by core id (core 1 before core 2), then the one second thread.
    assertEquals(List.of(5, 2, 6), order(topology));
    assertEquals(0, topology.cpus().get(1).threadIndex());
    assertEquals(1, topology.cpus().get(2).threadIndex());
    assertEquals(2, topology.physicalCores());
  }

  @Test
  void noneLeavesEveryReactorUnpinned() throws Exception {
    CpuTopology topology = SysfsTopology.read(twoSocketsWithHyperthreads().root(), all());
    assertArrayEquals(
        new int[] {CpuAllocator.UNPINNED, CpuAllocator.UNPINNED},
        CpuAllocator.assign(topology, CpuPolicy.NONE, 2));
    assertThrows(
        IllegalArgumentException.class, () -> CpuAllocator.assign(topology, CpuPolicy.NONE, 0));
  }

  @Test
  void policyParsing() {
    assertEquals(CpuPolicy.BALANCED, CpuPolicy.parse("Balanced"));
    assertEquals(CpuPolicy.NONE, CpuPolicy.parse("none"));
    assertThrows(IllegalArgumentException.class, () -> CpuPolicy.parse("socket"));
  }

  @Test
  void liveSystemParses() throws Exception {
    BitSet allowed = Affinity.allowedListFromStatus(Path.of("/proc/self/status"));
    CpuTopology topology = SysfsTopology.read(allowed);
    assertEquals(allowed, topology.ids());
  }
}
