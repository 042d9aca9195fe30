package io.tidestore.osd;

import io.tidestore.osd.cpu.Affinity;
import io.tidestore.osd.cpu.CpuAllocator;
import io.tidestore.osd.cpu.CpuList;
import io.tidestore.osd.cpu.CpuPolicy;
import io.tidestore.osd.cpu.CpuTopology;
import io.tidestore.osd.cpu.SysfsTopology;
import io.tidestore.osd.cpu.ThreadPinner;
import io.tidestore.osd.reactor.Reactors;
import java.io.IOException;
import java.util.BitSet;
import java.util.Optional;
import java.util.logging.Logger;

/** Turns the reactor settings into running, pinned reactors, logging each decision. */
final class ReactorSetup {
  private static final Logger LOG = Logger.getLogger(ReactorSetup.class.getName());

  private ReactorSetup() {}

  static Reactors start(OsdSettings settings) throws IOException {
    Optional<ThreadPinner> pinner = Affinity.pinner();
    BitSet allowed = Affinity.processCpus(pinner);
    int count = settings.reactors() > 0 ? settings.reactors() : Math.max(1, allowed.cardinality());
    CpuPolicy policy = settings.cpuPolicy();
    int[] cpus;
    if (policy == CpuPolicy.NONE || pinner.isEmpty()) {
      cpus = CpuAllocator.assign(new CpuTopology(java.util.List.of()), CpuPolicy.NONE, count);
    } else {
      CpuTopology topology;
      try {
        topology = SysfsTopology.read(allowed);
      } catch (IOException | RuntimeException e) {
        LOG.warning("cannot read CPU topology from /sys (" + e + "), reactors run unpinned");
        topology = new CpuTopology(java.util.List.of());
      }
      LOG.info("CPUs: " + topology.describe());
      if (count > topology.cpus().size() && !topology.cpus().isEmpty()) {
        LOG.warning(
            count
                + " reactors on "
                + topology.cpus().size()
                + " usable CPUs ("
                + CpuList.format(allowed)
                + "): some reactors share a CPU");
      }
      cpus = CpuAllocator.assign(topology, policy, count);
    }
    return Reactors.start(settings.transport(), cpus, pinner, settings.idlePoll());
  }
}
