package io.tidestore.osd;

import io.tidestore.osd.EngineSettings.EngineKind;
import io.tidestore.osd.classic.EventLoopIoThread;
import io.tidestore.osd.cpu.Affinity;
import io.tidestore.osd.cpu.CpuAllocator;
import io.tidestore.osd.reactor.Reactors;
import io.tidestore.osd.store.ShardQueueFactory;
import io.tidestore.store.io.handoff.IoThreadQueue;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.logging.Logger;

/** Starts the threads of the engine the settings ask for (docs/engines.md). */
final class EngineSetup {
  private static final Logger LOG = Logger.getLogger(EngineSetup.class.getName());

  private EngineSetup() {}

  static Engine start(OsdSettings settings) throws IOException {
    Engine engine =
        settings.engine().kind() == EngineKind.CLASSIC ? classic(settings) : reactor(settings);
    LOG.info(engine.describe());
    return engine;
  }

  private static Engine reactor(OsdSettings settings) throws IOException {
    Reactors reactors = ReactorSetup.start(settings);
    return new Engine(
        EngineKind.REACTOR, reactors, reactors, ShardQueueFactory.OWN_RING, List.of(reactors));
  }

  /**
   * Messenger loops, op workers and I/O loops, all unpinned as a classic OSD's threads are: the
   * kernel scheduler places them. Started I/O first so the workers can create their rings there.
   */
  private static Engine classic(OsdSettings settings) throws IOException {
    EngineSettings threads = settings.engine();
    int opThreads =
        threads.opThreads() > 0
            ? threads.opThreads()
            : Math.max(1, Affinity.processCpus(Affinity.pinner()).cardinality());
    List<Reactors> started = new ArrayList<>();
    try {
      Reactors io = group("io", threads.ioThreads(), settings, started);
      Reactors ops = group("osd-op", opThreads, settings, started);
      Reactors msgr = group("msgr", threads.msgrThreads(), settings, started);
      // Op worker w hands its I/O to I/O thread w mod N: with fewer I/O threads than workers,
      // one I/O thread owns several rings, as one aio thread serves a classic OSD's shards.
      ShardQueueFactory queues =
          (owner, config) ->
              IoThreadQueue.open(
                  new EventLoopIoThread(io.get(owner.index() % io.size()).loop()), config);
      return new Engine(EngineKind.CLASSIC, msgr, ops, queues, List.of(msgr, ops, io));
    } catch (IOException | RuntimeException e) {
      for (int i = started.size() - 1; i >= 0; i--) {
        started.get(i).close();
      }
      throw e;
    }
  }

  private static Reactors group(
      String prefix, int count, OsdSettings settings, List<Reactors> started) throws IOException {
    int[] unpinned = new int[count];
    Arrays.fill(unpinned, CpuAllocator.UNPINNED);
    Reactors group = Reactors.start(prefix, settings.transport(), unpinned, Affinity.pinner());
    started.add(group);
    return group;
  }
}
