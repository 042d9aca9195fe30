package io.tidestore.osd.pg;

import io.tidestore.cluster.pg.Eversion;
import io.tidestore.cluster.pg.PgPeerInfo;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Logger;

/**
 * A primary's peering at the start of each interval: it asks every other member of the acting set
 * for the head and tail of its log, and the PG goes active when all heads are its own. Below
 * min_size the PG waits for a new map; members whose logs differ wait for recovery. A member that
 * does not answer is asked again while the interval lasts. Runs on the PG's shard thread.
 */
// Each query handles its own outcome in whenComplete; the retry timer's future carries nothing.
@SuppressWarnings("FutureReturnValueIgnored")
final class Peering {
  private static final Logger LOG = Logger.getLogger(Peering.class.getName());

  /** How long before a member that did not answer is asked again. */
  private static final long RETRY_MILLIS = 500;

  private final ShardPgs shard;

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
          if (pg.peeringRound == round && pg.state == Pg.State.PEERING) {
            begin(pg);
          }
        });
  }

  private void begin(Pg pg) {
    pg.recoveringMembers.clear(); // every member is asked again, and recovered again if behind
    if (pg.acting.size() < pg.minSize) {
      pg.state = Pg.State.UNDERSIZED;
      LOG.fine("pg " + pg.id + " waits: acting " + pg.acting + " is below min_size " + pg.minSize);
      return;
    }
    List<Integer> others = pg.replicas(shard.self());
    Map<Integer, PgPeerInfo> answers = new HashMap<>();
    long round = pg.peeringRound;
    if (others.isEmpty()) {
      decide(pg, answers);
      return;
    }
    for (int osd : others) {
      ask(pg, osd, round, others.size(), answers);
    }
  }

  private void ask(Pg pg, int osd, long round, int expected, Map<Integer, PgPeerInfo> answers) {
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
                  if (pg.peeringRound != round || pg.state != Pg.State.PEERING) {
                    return;
                  }
                  if (e != null) {
                    shard.later(
                        RETRY_MILLIS,
                        () -> {
                          if (pg.peeringRound == round) {
                            ask(pg, osd, round, expected, answers);
                          }
                        });
                    return;
                  }
                  answers.put(osd, info);
                  if (answers.size() == expected) {
                    decide(pg, answers);
                  }
                }));
  }

  private void decide(Pg pg, Map<Integer, PgPeerInfo> answers) {
    Eversion head = pg.vouchedHead();
    for (Map.Entry<Integer, PgPeerInfo> a : answers.entrySet()) {
      if (!a.getValue().head().equals(head)) {
        shard.recovery.start(pg, answers);
        return;
      }
    }
    pg.state = Pg.State.ACTIVE;
    LOG.fine("pg " + pg.id + " active at " + head + " on " + pg.acting);
  }
}
