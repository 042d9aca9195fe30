package io.tidestore.osd;

import io.tidestore.osd.EngineSettings.EngineKind;
import io.tidestore.osd.classic.ClassicThreads;
import io.tidestore.osd.cpu.Affinity;
import io.tidestore.osd.cpu.CpuAllocator;
import io.tidestore.osd.reactor.Reactors;
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
    return new Engine(EngineKind.REACTOR, reactors, List.of(reactors), null);
  }

  /**
   * Messenger loops, the I/O loops, and the op workers, commit thread and finisher in between, all
   * unpinned as a classic OSD's threads are: the kernel scheduler places them. The I/O loops start
   * first so the shards can create their rings there.
   */
  private static Engine classic(OsdSettings settings) throws IOException {
    EngineSettings threads = settings.engine();
    List<Reactors> started = new ArrayList<>();
    try {
      Reactors io = group("io", threads.ioThreads(), settings, started);
      Reactors msgr = group("msgr", threads.msgrThreads(), settings, started);
      ClassicThreads classic =
          ClassicThreads.start(threads.opShards(), threads.opThreadsPerShard(), io);
      return new Engine(EngineKind.CLASSIC, msgr, List.of(msgr, io), classic);
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
