package io.tidestore.osd.pg;

import io.tidestore.cluster.pg.Eversion;
import io.tidestore.cluster.pg.PgPeerInfo;
import io.tidestore.cluster.pghistory.PgActivation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Logger;

/**
 * A primary's peering at the start of each interval. It reads the monitors' record of the PG's
 * newest activation ({@link PgHistory}), asks every other member of the acting set for the head and
 * tail of its log and its last activation, and also asks the members of that record which are up
 * but outside the acting set (Ceph's probe of past intervals). Unless one member of the record that
 * kept it answered, the PG stays down (only they surely hold every acknowledged write). Otherwise
 * it goes active when all heads are its own ({@link Activation} first), or recovers. Below min_size
 * the PG waits for a new map. A member that does not answer is asked again while the interval lasts
 * (an OSD outside the acting set only while the map has it up). Runs on the PG's shard thread.
 */
// Each query handles its own outcome in whenComplete; the retry timer's future carries nothing.
@SuppressWarnings("FutureReturnValueIgnored")
final class Peering {
  private static final Logger LOG = Logger.getLogger(Peering.class.getName());

  /** How long before a member (or the monitors) that did not answer is asked again. */
  private static final long RETRY_MILLIS = 500;

  private final ShardPgs shard;

  /** One round's answers: from the acting set, and from the probed OSDs outside it. */
  private static final class Answers {
    final long round;
    final Map<Integer, PgPeerInfo> acting = new HashMap<>();
    final Map<Integer, PgPeerInfo> probes = new HashMap<>();
    final Set<Integer> waiting = new HashSet<>();

    Answers(long round) {
      this.round = round;
    }
  }

  Peering(ShardPgs shard) {
    this.shard = shard;
  }

  /**
   * Starts peering {@code pg} as its primary, once the ops this OSD staged as a replica of the
   * previous primary are durable (or failed): their entries join the log, so the head this primary
   * compares and the versions it hands out next must come after them.
   */
  void start(Pg pg) {
    long round = pg.peeringRound;
    shard.replica.afterApplies(
        pg,
        () -> {
          if (current(pg, round)) {
            begin(pg);
          }
        });
  }

  private static boolean current(Pg pg, long round) {
    return pg.peeringRound == round && pg.state == Pg.State.PEERING;
  }

  private void begin(Pg pg) {
    pg.recoveringMembers.clear(); // every member is asked again, and recovered again if behind
    pg.peerLastActive.clear();
    if (pg.acting.size() < pg.minSize) {
      pg.state = Pg.State.UNDERSIZED;
      LOG.fine("pg " + pg.id + " waits: acting " + pg.acting + " is below min_size " + pg.minSize);
      return;
    }
    long round = pg.peeringRound;
    shard
        .services
        .history()
        .lookup(pg.id)
        .whenCompleteAsync(
            (last, e) -> {
              if (!current(pg, round)) {
                return;
              }
              if (e != null) {
                LOG.fine("pg " + pg.id + ": no answer from the monitors (" + e + "); again");
                shard.later(
                    RETRY_MILLIS,
                    () -> {
                      if (current(pg, round)) {
                        begin(pg);
                      }
                    });
                return;
              }
              pg.lastActivation = last;
              ask(pg, last, round);
            },
            shard.executor);
  }

  private void ask(Pg pg, PgActivation last, long round) {
    Answers answers = new Answers(round);
    List<Integer> others = pg.replicas(shard.self());
    List<Integer> probes = new ArrayList<>();
    if (last != null) {
      MapView view = shard.services.map().get();
      for (int osd : last.members()) {
        if (osd != shard.self() && !pg.acting.contains(osd) && view.up(osd)) {
          probes.add(osd);
        }
      }
    }
    answers.waiting.addAll(others);
    answers.waiting.addAll(probes);
    if (answers.waiting.isEmpty()) {
      decide(pg, answers);
      return;
    }
    for (int osd : others) {
      query(pg, osd, answers, false);
    }
    for (int osd : probes) {
      query(pg, osd, answers, true);
    }
  }

  private void query(Pg pg, int osd, Answers answers, boolean probe) {
    MapView view = shard.services.map().get();
    String address = view.address(osd);
    CompletableFuture<PgPeerInfo> reply =
        address == null
            ? CompletableFuture.failedFuture(
                new IllegalStateException("osd." + osd + " has no address"))
            : shard.services.peers().query(osd, address, view.epoch(), pg.id);
    reply.whenComplete(
        (info, e) ->
            shard.executor.execute(
                () -> {
                  if (!current(pg, answers.round)) {
                    return;
                  }
                  if (e != null) {
                    shard.later(RETRY_MILLIS, () -> retry(pg, osd, answers, probe));
                    return;
                  }
                  (probe ? answers.probes : answers.acting).put(osd, info);
                  answered(pg, osd, answers);
                }));
  }

  private void retry(Pg pg, int osd, Answers answers, boolean probe) {
    if (!current(pg, answers.round)) {
      return;
    }
    if (probe && !shard.services.map().get().up(osd)) {
      // Marked down meanwhile: it no longer counts (the PG is down if it was the only one).
      answered(pg, osd, answers);
      return;
    }
    query(pg, osd, answers, probe);
  }

  private void answered(Pg pg, int osd, Answers answers) {
    answers.waiting.remove(osd);
    if (answers.waiting.isEmpty()) {
      decide(pg, answers);
    }
  }

  private void decide(Pg pg, Answers answers) {
    answers.acting.forEach((osd, info) -> pg.peerLastActive.put(osd, info.lastActive()));
    PgActivation last = pg.lastActivation;
    if (last != null && !heard(pg, last, answers)) {
      pg.state = Pg.State.HISTORY_DOWN;
      LOG.warning(
          "pg "
              + pg.id
              + " is down: it was last activated in epoch "
              + last.epoch()
              + " with osd "
              + last.members()
              + ", and none of them that kept it answers; waiting for one to come back");
      return;
    }
    Eversion head = pg.vouchedHead();
    boolean same = true;
    for (PgPeerInfo info : answers.acting.values()) {
      same &= info.head().equals(head);
    }
    for (PgPeerInfo info : answers.probes.values()) {
      same &= !info.head().after(head);
    }
    if (!same) {
      shard.recovery.start(pg, answers.acting, answers.probes);
      return;
    }
    long round = answers.round;
    shard.activation.activate(
        pg,
        pg.acting,
        round,
        () -> {
          pg.state = Pg.State.ACTIVE;
          LOG.fine("pg " + pg.id + " active at " + head + " on " + pg.acting);
        });
  }

  /** Whether this OSD or one that answered is of {@code last}'s members and kept it. */
  private boolean heard(Pg pg, PgActivation last, Answers answers) {
    if (last.heldBy(shard.self(), pg.lastActive)) {
      return true;
    }
    for (var a : answers.acting.entrySet()) {
      if (last.heldBy(a.getKey(), a.getValue().lastActive())) {
        return true;
      }
    }
    for (var a : answers.probes.entrySet()) {
      if (last.heldBy(a.getKey(), a.getValue().lastActive())) {
        return true;
      }
    }
    return false;
  }
}
