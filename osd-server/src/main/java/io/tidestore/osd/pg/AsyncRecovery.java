package io.tidestore.osd.pg;

import io.tidestore.cluster.pg.Eversion;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Recovery that keeps a PG serving, as Ceph's async recovery does: when the primary holds the
 * newest log and the members that are up to date make min_size (and two copies at least) without
 * those behind, the members behind leave the PG's write set (ops are acknowledged once the others
 * have them durable) and are brought up to date in rounds while client ops go on: each round pushes
 * what the member lacks against the primary's log of that moment and syncs its log to it, so the
 * next round only has the writes made meanwhile. Once a member is close, the PG holds its ops for a
 * last round with nothing in flight (ops get EAGAIN and are resent), then peers again, which takes
 * every member back. An object written while it was being pushed is pushed again in a later round,
 * so the member ends identical. Runs on the PG's shard thread.
 */
// Each step's future is chained; the outcome is handled in whenCompleteAsync.
@SuppressWarnings("FutureReturnValueIgnored")
final class AsyncRecovery {
  private static final Logger LOG = Logger.getLogger(AsyncRecovery.class.getName());

  /** Rounds with ops flowing before the last one, which holds them. */
  private static final int MAX_ROUNDS = 4;

  /** A member fewer entries than this behind after a round gets its last round at once. */
  private static final long CLOSE_ENOUGH = 64;

  /** How often a PG whose ops are held checks whether the ops in flight have finished. */
  private static final long IDLE_POLL_MILLIS = 2;

  private final ShardPgs shard;
  private final Recovery recovery;

  AsyncRecovery(ShardPgs shard, Recovery recovery) {
    this.shard = shard;
    this.recovery = recovery;
  }

  /**
   * Starts recovering {@code behind} (the members whose log differs from this primary's, which is
   * the newest) while the PG serves; false when the PG cannot serve without them (fewer than
   * min_size left) or this copy has a gap of its own, for the caller's recovery with ops held.
   */
  boolean tryStart(Pg pg, List<Integer> behind, long round) {
    // Never one copy alone: were it lost, a member behind (with no record of what it missed) could
    // serve older data than was acknowledged; a pool of min_size 1 recovers with ops held instead.
    int upToDate = pg.acting.size() - behind.size();
    if (behind.isEmpty() || pg.failedAt != null || upToDate < Math.max(pg.minSize, 2)) {
      return false;
    }
    pg.recoveringMembers.addAll(behind);
    List<Integer> writeSet = new ArrayList<>(pg.acting);
    writeSet.removeAll(behind);
    shard.activation.activate(pg, writeSet, round, () -> serve(pg, behind, round));
    return true;
  }

  /** The PG serves with the members behind out of its write set, while rounds recover them. */
  private void serve(Pg pg, List<Integer> behind, long round) {
    pg.state = Pg.State.ACTIVE;
    LOG.info("pg " + pg.id + " serves while osd " + behind + " recover (async recovery)");
    CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
    for (int osd : behind) {
      chain = chain.thenComposeAsync(v -> rounds(pg, osd, round, 1), shard.executor);
    }
    chain
        .orTimeout(30, TimeUnit.MINUTES)
        .whenCompleteAsync(
            (v, e) -> {
              if (pg.peeringRound != round) {
                return;
              }
              if (e != null) {
                recovery.stopped(pg, round, e);
                return;
              }
              // The last round holds the PG's ops: nothing in flight, then each member once more.
              pg.state = Pg.State.RECOVERING;
              whenIdle(pg, round, () -> recovery.finish(pg, behind, round));
            },
            shard.executor);
  }

  /**
   * Rounds for member {@code osd} until it is close to the primary's head or rounds run out; each
   * round waits for one of the OSD's recovery slots.
   */
  private CompletableFuture<Void> rounds(Pg pg, int osd, long round, int n) {
    CompletableFuture<Void> slot = new CompletableFuture<>();
    RecoverySlots slots = shard.services.recoverySlots();
    slots.acquire(() -> shard.executor.execute(() -> slot.complete(null)));
    CompletableFuture<Eversion> started = slot.thenApply(v -> pg.log.head());
    return started
        .thenComposeAsync(start -> recovery.recoverMember(pg, osd, round, true), shard.executor)
        .whenComplete((v, e) -> slots.release())
        .thenCombine(started, (v, start) -> start)
        .thenComposeAsync(
            start -> {
              long writtenMeanwhile = pg.log.head().version() - start.version();
              return n < MAX_ROUNDS && writtenMeanwhile >= CLOSE_ENOUGH
                  ? rounds(pg, osd, round, n + 1)
                  : CompletableFuture.<Void>completedFuture(null);
            },
            shard.executor);
  }

  /** Runs {@code then} once the PG has no op in flight (its new ops are held meanwhile). */
  private void whenIdle(Pg pg, long round, Runnable then) {
    if (pg.peeringRound != round) {
      return;
    }
    if (pg.inFlight.isEmpty()) {
      then.run();
    } else {
      shard.later(IDLE_POLL_MILLIS, () -> whenIdle(pg, round, then));
    }
  }
}
