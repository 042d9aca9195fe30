package io.tidestore.mon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.cluster.local.MonPortPair;
import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.FailureDomain;
import io.tidestore.cluster.map.MapCommand;
import io.tidestore.cluster.pghistory.PgActivation;
import io.tidestore.cluster.pghistory.PgActivations;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.cluster.wire.MonMessages;
import io.tidestore.osd.security.SecuritySettings;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.util.LifeCycle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state machine inside a real one-monitor Ratis group: commands apply in order and reach
 * listeners, a snapshot is taken every few entries, and a restarted monitor rebuilds the same map
 * from the snapshot and the log after it.
 */
class MapStateMachineTest {
  @TempDir Path dir;

  private MonSettings settings(int port) {
    return new MonSettings(
        "a",
        dir,
        new InetSocketAddress("127.0.0.1", port),
        List.of(new MonMessages.Peer("a", "127.0.0.1:" + port)),
        Duration.ofSeconds(6),
        Duration.ofMinutes(10),
        FailureDomain.HOST,
        0,
        null,
        3,
        SecuritySettings.plaintext());
  }

  /** A free port whose Raft port (+1) is free too. */
  private static int freePort() throws Exception {
    return MonPortPair.pick();
  }

  private record Running(RaftServer server, MapStateMachine machine, Proposer proposer)
      implements AutoCloseable {
    @Override
    public void close() throws java.io.IOException {
      proposer.close();
      server.close();
    }
  }

  private Running start(MonSettings settings, List<ClusterMap> seen) throws Exception {
    MapStateMachine machine = new MapStateMachine(seen::add);
    RaftServer server = RaftGroupSetup.server(settings, machine);
    server.start();
    Proposer proposer =
        new Proposer(RaftGroupSetup.client(settings), Duration.ofSeconds(20), machine);
    return new Running(server, machine, proposer);
  }

  @Test
  void appliesInOrderSnapshotsAndRestoresAfterARestart() throws Exception {
    MonSettings settings = settings(freePort());
    List<ClusterMap> seen = new CopyOnWriteArrayList<>();
    ClusterMap before;
    try (Running mon = start(settings, seen)) {
      Proposer.Result init =
          mon.proposer().propose(new MapCommand.Init(UUID.randomUUID(), 1, FailureDomain.HOST));
      assertNull(init.error());
      assertEquals(1, init.epoch());
      for (int i = 0; i < 8; i++) {
        Proposer.Result r =
            mon.proposer().propose(new MapCommand.PoolCreate("p" + i, 3, 2, 8, null));
        assertNull(r.error());
        assertEquals(2 + i, r.epoch(), "one epoch per change");
      }
      Proposer.Result refused =
          mon.proposer().propose(new MapCommand.PoolCreate("p0", 3, 2, 8, null));
      assertNotNull(refused.error());
      assertEquals(9, refused.epoch(), "a refused command makes no epoch");
      before = mon.machine().map();
      assertEquals(9, before.epoch());
      assertEquals(before, mon.proposer().readMap(), "the leader's read is the applied map");
      assertEquals(9, seen.size(), "every change reached the listener once");
    }
    try (Stream<Path> files = Files.walk(dir)) {
      assertTrue(
          files.anyMatch(p -> p.getFileName().toString().startsWith("snapshot.")),
          "a snapshot every 3 entries");
    }
    List<ClusterMap> afterRestart = new CopyOnWriteArrayList<>();
    try (Running mon = start(settings, afterRestart)) {
      // The snapshot loads before the server serves; the log after it replays on election.
      Proposer.Result r = mon.proposer().propose(new MapCommand.PoolRemove("p3"));
      assertNull(r.error());
      ClusterMap after = mon.machine().map();
      assertEquals(before.epoch() + 1, after.epoch());
      assertEquals(before.fsid(), after.fsid());
      assertEquals(before.pools().size() - 1, after.pools().size());
      assertTrue(after.pool("p7").isPresent());

      // What Ratis does around installing a snapshot the leader sent to a monitor too far behind
      // for the log: it asserts PAUSED after pause(), then calls reinitialize(), which must load
      // the (installed) latest snapshot and resume. (A machine that never reached PAUSED made the
      // restarted monitor of ClusterThreeMonIT close its Raft division and never catch up.)
      mon.machine().pause();
      assertEquals(LifeCycle.State.PAUSED, mon.machine().getLifeCycleState());
      mon.machine().reinitialize();
      assertEquals(LifeCycle.State.RUNNING, mon.machine().getLifeCycleState());
      assertTrue(mon.machine().map().epoch() >= before.epoch(), "the snapshot's map is loaded");
    }
  }

  @Test
  void pgActivationsAreRecordedBesideTheMapAndSurviveARestart() throws Exception {
    MonSettings settings = settings(freePort());
    PgId a = new PgId(1, 0x2f);
    PgId b = new PgId(2, 3);
    ClusterMap before;
    try (Running mon = start(settings, new CopyOnWriteArrayList<>())) {
      mon.proposer().propose(new MapCommand.Init(UUID.randomUUID(), 1, FailureDomain.HOST));
      mon.proposer().propose(new MapCommand.PoolCreate("p", 2, 1, 8, null));
      before = mon.machine().map();
      Proposer.Result first = mon.proposer().propose(activated(a, 2, 0, 1, 2));
      assertEquals(List.of(), first.refused());
      assertEquals(before.epoch(), first.epoch(), "an activation makes no epoch");
      // Pool 2's seed 3 exists; an activation of an epoch the map has not reached does not.
      TreeMap<PgId, PgActivation> batch = new TreeMap<>(PgActivations.ORDER);
      batch.put(b, new PgActivation(2, List.of(1)));
      batch.put(new PgId(2, 8), new PgActivation(2, List.of(1)));
      batch.put(new PgId(1, 1), new PgActivation(before.epoch() + 1, List.of(1)));
      assertEquals(
          List.of(new PgId(1, 1), new PgId(2, 8)),
          mon.proposer().propose(PgActivations.encodeCommand(batch)).refused());
      // An older primary's activation, after a newer one, is refused: that interval is over.
      assertEquals(List.of(a), mon.proposer().propose(activated(a, 1, 5)).refused());
      for (int i = 0; i < 4; i++) {
        mon.proposer().propose(activated(a, 2, i, 1)); // the same epoch again: the newest wins
      }
      assertEquals(
          java.util.Arrays.asList(
              new PgActivation(2, List.of(1, 3)), new PgActivation(2, List.of(1)), null),
          mon.proposer().readActivations(List.of(a, b, new PgId(1, 5))));
    }
    try (Running mon = start(settings, new CopyOnWriteArrayList<>())) {
      mon.proposer().propose(new MapCommand.PoolCreate("q", 1, 1, 1, null)); // replays the log
      assertEquals(
          java.util.Arrays.asList(
              new PgActivation(2, List.of(1, 3)), new PgActivation(2, List.of(1))),
          mon.proposer().readActivations(List.of(a, b)),
          "kept through the snapshot and the log after it");
      mon.proposer().propose(new MapCommand.PoolRemove("p"));
      assertEquals(
          java.util.Arrays.asList(new PgActivation(2, List.of(1, 3)), null),
          mon.proposer().readActivations(List.of(a, b)),
          "a removed pool's PGs are forgotten");
    }
  }

  private static byte[] activated(PgId pg, long epoch, int... members) {
    TreeMap<PgId, PgActivation> batch = new TreeMap<>(PgActivations.ORDER);
    batch.put(pg, new PgActivation(epoch, java.util.Arrays.stream(members).boxed().toList()));
    return PgActivations.encodeCommand(batch);
  }
}
