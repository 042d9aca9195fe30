package io.tidestore.osd.pg;

import io.tidestore.cluster.pg.PgMeta;
import io.tidestore.cluster.pghistory.PgActivation;
import io.tidestore.store.api.Transaction;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Logger;

/**
 * A primary's last step before its PG serves with a write set (docs/cluster.md "PG history"; what
 * Ceph's {@code up_thru} and {@code last_epoch_started} do): every member of the set keeps the
 * epoch as its copy's {@code last_active}, then the monitors record the set. A later peering must
 * hear from one member of the newest recorded set that kept it, or the PG stays down: only they are
 * sure to hold every write acknowledged since. Nothing is sent when the record already names
 * exactly this set and every member kept it. Runs on the PG's shard thread.
 */
// Each step's future is chained; the outcome is handled in whenCompleteAsync.
@SuppressWarnings("FutureReturnValueIgnored")
final class Activation {
  private static final Logger LOG = Logger.getLogger(Activation.class.getName());

  private final ShardPgs shard;

  Activation(ShardPgs shard) {
    this.shard = shard;
  }

  /**
   * Runs {@code onActive} once {@code pg} may serve with {@code writeSet} (this OSD among them), in
   * peering round {@code round}; if the round ends first, nothing runs. A failure (a member or the
   * monitors did not answer) makes the PG peer again a second later.
   */
  void activate(Pg pg, List<Integer> writeSet, long round, Runnable onActive) {
    PgActivation next = new PgActivation(shard.epoch(), writeSet);
    if (recorded(pg, next)) {
      onActive.run();
      return;
    }
    pg.activating = true;
    List<CompletableFuture<Void>> kept = new ArrayList<>();
    MapView view = shard.services.map().get();
    for (int osd : next.members()) {
      String address = view.address(osd);
      kept.add(
          osd == shard.self()
              ? keep(pg, next.epoch())
              : address == null
                  ? CompletableFuture.failedFuture(
                      new IllegalStateException("osd." + osd + " has no address"))
                  : shard.services.peers().activate(osd, address, next.epoch(), pg.id));
    }
    CompletableFuture.allOf(kept.toArray(CompletableFuture[]::new))
        .thenCompose(v -> shard.services.history().record(pg.id, next))
        .whenCompleteAsync(
            (accepted, e) -> {
              if (pg.peeringRound != round) {
                return;
              }
              pg.activating = false;
              if (e != null || !accepted) {
                String why =
                    e != null ? e.toString() : "the monitors hold a later activation of it";
                shard.recovery.stopped(pg, round, new IllegalStateException("activation: " + why));
                if (e == null) {
                  shard.services.newerMap().accept(next.epoch() + 1);
                }
                return;
              }
              pg.lastActivation = next;
              for (int osd : next.members()) {
                pg.peerLastActive.put(osd, next.epoch());
              }
              LOG.fine("pg " + pg.id + " activated in epoch " + next.epoch() + " with " + writeSet);
              onActive.run();
            },
            shard.executor);
  }

  /** Whether the monitors' record is already {@code next}'s write set, kept by all of it. */
  private boolean recorded(Pg pg, PgActivation next) {
    PgActivation last = pg.lastActivation;
    if (last == null || !last.members().equals(next.members())) {
      return false;
    }
    for (int osd : last.members()) {
      long lastActive =
          osd == shard.self() ? pg.lastActive : pg.peerLastActive.getOrDefault(osd, 0L);
      if (lastActive < last.epoch()) {
        return false;
      }
    }
    return true;
  }

  /**
   * A member's side of ACTIVATE: keeps {@code epoch} as this copy's last activation, unless it was
   * sent on a map older than this PG's interval here (that primary's activation is stale).
   */
  void member(Pg pg, long epoch, CompletableFuture<Void> done) {
    if (epoch < pg.intervalStart) {
      done.completeExceptionally(pg.staleFor(epoch, "primary", ""));
      return;
    }
    shard.replica.afterApplies(pg, () -> Futures.forward(keep(pg, epoch), done));
  }

  /** Keeps {@code epoch} as this copy's {@link PgMeta#LAST_ACTIVE} (it never goes back). */
  private CompletableFuture<Void> keep(Pg pg, long epoch) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    if (epoch <= pg.lastActive) {
      done.complete(null);
      return done;
    }
    var meta = PgMeta.metaKey(pg.id);
    byte[] value = ByteBuffer.allocate(8).putLong(epoch).array();
    shard.store.submit(
        new Transaction().touch(meta).setXattr(meta, PgMeta.LAST_ACTIVE, value),
        (v, f) ->
            shard.executor.execute(
                () -> {
                  if (f != null) {
                    done.completeExceptionally(f);
                    return;
                  }
                  pg.lastActive = Math.max(pg.lastActive, epoch);
                  done.complete(null);
                }));
    return done;
  }

  /** The last activation a PG's metadata attributes keep, 0 for none. */
  static long lastActiveOf(Map<String, byte[]> attrs) {
    byte[] v = attrs == null ? null : attrs.get(PgMeta.LAST_ACTIVE);
    return v != null && v.length == 8 ? Math.max(0, ByteBuffer.wrap(v).getLong()) : 0;
  }
}
