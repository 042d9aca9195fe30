package io.tidestore.osd.pg;

import io.tidestore.cluster.pg.Eversion;
import io.tidestore.cluster.pg.PgLogEntry;
import io.tidestore.cluster.pg.PgPeerInfo;
import io.tidestore.osd.ops.LogCopy;
import io.tidestore.osd.ops.LogSync;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Logger;

/**
 * A primary's recovery of a PG whose members' logs differ (Ceph's log-based recovery and backfill,
 * one object at a time): the member with the newest head is the authority; a primary behind it
 * first pulls what it misses, then each member behind the primary gets what it misses pushed. A
 * member whose log still overlaps the authority's gets the objects of the entries it lacks or holds
 * without the authority (divergent: rolled back to the authority's state); one that missed more
 * than the log keeps is backfilled (every object of the PG, and its own extra objects removed). Its
 * log then becomes the authority's. Afterwards the primary peers again, which checks the outcome.
 * Client ops wait meanwhile (the PG is {@code recovering}), unless {@link AsyncRecovery} can
 * recover the members behind while the PG serves. A new interval abandons it. Runs on the PG's
 * shard thread.
 */
// Each step's future is chained; the last one's outcome is handled in whenCompleteAsync.
@SuppressWarnings("FutureReturnValueIgnored")
final class Recovery {
  private static final Logger LOG = Logger.getLogger(Recovery.class.getName());

  private final ShardPgs shard;
  private final AsyncRecovery async;

  Recovery(ShardPgs shard) {
    this.shard = shard;
    this.async = new AsyncRecovery(shard, this);
  }

  /**
   * Starts recovering {@code pg}, whose members answered peering with {@code heads}; {@code probes}
   * (OSDs of its last activation outside the acting set) may hold the newest log, and are then the
   * authority the primary catches up from, but are not recovered themselves.
   */
  void start(Pg pg, Map<Integer, PgPeerInfo> heads, Map<Integer, PgPeerInfo> probes) {
    long round = pg.peeringRound;
    pg.state = Pg.State.RECOVERING;
    int self = shard.self();
    int authority = self;
    Eversion best = pg.vouchedHead();
    for (Map<Integer, PgPeerInfo> answers : List.of(heads, probes)) {
      for (var h : answers.entrySet()) {
        if (h.getValue().head().after(best)) {
          authority = h.getKey();
          best = h.getValue().head();
        }
      }
    }
    LOG.info(
        "pg "
            + pg.id
            + " recovering: authority osd."
            + authority
            + " at "
            + best
            + ", members "
            + heads
            + (probes.isEmpty() ? "" : ", probed " + probes));
    if (authority == self) {
      List<Integer> behind = new ArrayList<>();
      heads.forEach(
          (osd, info) -> {
            if (!info.head().equals(pg.vouchedHead())) {
              behind.add(osd);
            }
          });
      if (async.tryStart(pg, behind, round)) {
        return;
      }
    }
    CompletableFuture<Void> chain =
        authority == self ? CompletableFuture.completedFuture(null) : catchUp(pg, authority, round);
    finish(pg, chain, new ArrayList<>(heads.keySet()), round);
  }

  /** Brings {@code members} up to date with ops held (after {@code before}), then peers again. */
  void finish(Pg pg, List<Integer> members, long round) {
    finish(pg, CompletableFuture.completedFuture(null), members, round);
  }

  private void finish(Pg pg, CompletableFuture<Void> before, List<Integer> members, long round) {
    CompletableFuture<Void> chain = before;
    for (int osd : members) {
      chain =
          chain.thenComposeAsync(
              v -> {
                check(pg, round);
                return osd == shard.self()
                    ? CompletableFuture.<Void>completedFuture(null)
                    : recoverMember(pg, osd, round, false);
              },
              shard.executor);
    }
    chain
        // A step that hangs (a member that stopped answering) must not hold the PG for good.
        .orTimeout(5, java.util.concurrent.TimeUnit.MINUTES)
        .whenCompleteAsync(
            (v, e) -> {
              if (pg.peeringRound != round) {
                return;
              }
              if (e != null) {
                stopped(pg, round, e);
              } else {
                LOG.info("pg " + pg.id + " recovered; peering again to check");
                repeer(pg, round);
              }
            },
            shard.executor);
  }

  /** A recovery step failed: the PG peers again a second later (and recovers again). */
  void stopped(Pg pg, long round, Throwable e) {
    LOG.warning("pg " + pg.id + " recovery stopped: " + e + "; peering again in 1 s");
    pg.recoveringMembers.clear();
    pg.state = Pg.State.RECOVERING;
    shard.later(1000, () -> repeer(pg, round));
  }

  private void repeer(Pg pg, long round) {
    if (pg.peeringRound == round) {
      pg.peeringRound++;
      pg.state = Pg.State.PEERING;
      pg.backfilling = false;
      shard.peering.start(pg);
    }
  }

  private static void check(Pg pg, long round) {
    if (pg.peeringRound != round) {
      throw new CancellationException("pg " + pg.id + " started a new interval");
    }
  }

  /**
   * A member behind the primary: its missing or divergent objects pushed, then its log synced;
   * {@code paced} (the PG serves meanwhile) pauses as the OSD's recovery throttle says for the
   * bytes it pushes.
   */
  CompletableFuture<Void> recoverMember(Pg pg, int osd, long round, boolean paced) {
    return shard
        .services
        .peers()
        .getLog(osd, shard.address(osd), shard.epoch(), pg.id)
        .thenComposeAsync(
            theirs -> {
              check(pg, round);
              LogCopy mine = new LogCopy(pg.log.tail(), new ArrayList<>(pg.log.entries().values()));
              if (mine.head().equals(theirs.head()) && mine.entries().equals(theirs.entries())) {
                return CompletableFuture.<Void>completedFuture(null);
              }
              Plan plan = Plan.of(mine, theirs);
              pg.backfilling |= plan.backfill;
              LOG.info("pg " + pg.id + ": " + plan.describe("osd." + osd));
              CompletableFuture<List<String>> objects =
                  plan.backfill
                      ? backfillNames(pg, osd, round)
                      : CompletableFuture.completedFuture(new ArrayList<>(plan.objects));
              return objects
                  .thenComposeAsync(
                      names ->
                          PgListing.forEach(
                              names, 0, n -> push(pg, osd, round, n, paced), shard.executor),
                      shard.executor)
                  .thenCompose(
                      v ->
                          shard
                              .services
                              .peers()
                              .logSync(osd, shard.address(osd), shard.epoch(), pg.id, plan.sync));
            },
            shard.executor);
  }

  /** Every object of the PG here, and the member's that are not here (which the pushes remove). */
  private CompletableFuture<List<String>> backfillNames(Pg pg, int osd, long round) {
    LinkedHashSet<String> names = new LinkedHashSet<>(PgListing.local(shard, pg));
    return PgListing.member(shard, pg, osd, "", names, () -> check(pg, round))
        .thenApply(v -> new ArrayList<>(names));
  }

  /** Pushes object {@code name} from here to member {@code osd}, counted as recovery. */
  private CompletableFuture<Void> push(Pg pg, int osd, long round, String name, boolean paced) {
    PgMetrics metrics = shard.services.metrics();
    long pause = paced ? shard.services.recoverySlots().pauseMillis() : 0;
    return shard
        .transfer
        .push(pg, osd, name, pause, () -> check(pg, round), metrics::recovered)
        .thenRun(metrics::recoveredObject);
  }

  /** Pulls object {@code name} from member {@code osd} to here, counted as recovery. */
  private CompletableFuture<Void> pull(Pg pg, int osd, long round, String name) {
    PgMetrics metrics = shard.services.metrics();
    return shard
        .transfer
        .pull(pg, osd, name, () -> check(pg, round), metrics::recovered)
        .thenRun(metrics::recoveredObject);
  }

  /** The primary behind the authority: pulls what it misses, then takes the authority's log. */
  private CompletableFuture<Void> catchUp(Pg pg, int authority, long round) {
    return shard
        .services
        .peers()
        .getLog(authority, shard.address(authority), shard.epoch(), pg.id)
        .thenComposeAsync(
            theirs -> {
              check(pg, round);
              LogCopy mine = new LogCopy(pg.log.tail(), new ArrayList<>(pg.log.entries().values()));
              Plan plan = Plan.of(theirs, mine);
              pg.backfilling |= plan.backfill;
              LOG.info("pg " + pg.id + ": " + plan.describe("osd." + shard.self() + " (primary)"));
              CompletableFuture<List<String>> objects;
              if (plan.backfill) {
                objects = backfillNames(pg, authority, round);
              } else {
                objects = CompletableFuture.completedFuture(new ArrayList<>(plan.objects));
              }
              return objects
                  .thenComposeAsync(
                      names ->
                          PgListing.forEach(
                              names, 0, n -> pull(pg, authority, round, n), shard.executor),
                      shard.executor)
                  .thenComposeAsync(v -> LogSyncs.apply(shard, pg, plan.sync), shard.executor);
            },
            shard.executor);
  }

  /**
   * What a copy behind the authority needs: its objects to fix and the log changes, or a backfill
   * when the authority trimmed entries that copy never had.
   */
  record Plan(boolean backfill, Set<String> objects, LogSync sync) {
    static Plan of(LogCopy authority, LogCopy behind) {
      // The authority trimmed entries this copy never had: its log cannot say what to fix.
      boolean backfill = behind.head().compareTo(authority.tail()) < 0;
      Set<PgLogEntry> theirs = new HashSet<>(authority.entries());
      Set<PgLogEntry> mine = new HashSet<>(behind.entries());
      if (backfill) {
        List<Eversion> all = new ArrayList<>();
        for (PgLogEntry e : behind.entries()) {
          all.add(e.version());
        }
        return new Plan(true, Set.of(), new LogSync(authority.tail(), all, authority.entries()));
      }
      LinkedHashSet<String> objects = new LinkedHashSet<>();
      List<Eversion> divergent = new ArrayList<>();
      for (PgLogEntry e : behind.entries()) {
        if (e.version().after(authority.tail()) && !theirs.contains(e)) {
          divergent.add(e.version());
          objects.add(e.object());
        }
      }
      List<PgLogEntry> missing = new ArrayList<>();
      for (PgLogEntry e : authority.entries()) {
        // An entry at or before the copy's tail is one it applied and trimmed since (a log that
        // recovery filled keeps more than KEEP until its next trims): not missing.
        if (!mine.contains(e) && e.version().after(behind.tail())) {
          missing.add(e);
          objects.add(e.object());
        }
      }
      return new Plan(false, objects, new LogSync(behind.tail(), divergent, missing));
    }

    String describe(String who) {
      return backfill
          ? who + " needs a backfill (it missed more than the log keeps)"
          : who
              + " gets "
              + objects.size()
              + " objects ("
              + sync.add().size()
              + " entries missing, "
              + sync.remove().size()
              + " divergent)";
    }
  }
}
