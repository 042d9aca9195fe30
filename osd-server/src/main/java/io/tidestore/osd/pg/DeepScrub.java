package io.tidestore.osd.pg;

import io.tidestore.cluster.pg.PgMeta;
import io.tidestore.osd.ops.ObjectDigest;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.ops.ObjectOpsException.Code;
import io.tidestore.osd.ops.ScrubReport;
import io.tidestore.osd.ops.ScrubReport.Finding;
import io.tidestore.store.api.Transaction;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.logging.Logger;

/**
 * A primary's deep scrub of its PGs (Ceph's deep scrub): every object of the PG (listed here and on
 * each member, as a backfill lists them) is compared across the acting set, block by block ({@link
 * ObjectDigest}s: this OSD's read here, the others' asked with BLOCK_CRCS), decided by {@link
 * ScrubCompare}, and each bad copy is replaced by the authoritative one (pushed to a member, or
 * pulled here when this OSD's is bad) and checked again. One object at a time, held meanwhile:
 * client ops to it wait ({@link Pg#heldByScrub}), those to other objects go on. Runs while the PG
 * is active; a new interval stops it. Runs on the PG's shard thread.
 */
// Each step's future is chained; the last one's outcome is handled in whenCompleteAsync.
@SuppressWarnings("FutureReturnValueIgnored")
final class DeepScrub {
  private static final Logger LOG = Logger.getLogger(DeepScrub.class.getName());

  private final ShardPgs shard;

  DeepScrub(ShardPgs shard) {
    this.shard = shard;
  }

  private ScrubSlot slot() {
    return shard.services.scrubs();
  }

  /** BLOCK_CRCS: this OSD's copy of object {@code name} of {@code pg}. */
  void digest(Pg pg, long epoch, String name, CompletableFuture<ObjectDigest> done) {
    if (epoch < pg.intervalStart) {
      done.completeExceptionally(pg.staleFor(epoch, "sender", ""));
      return;
    }
    Futures.forward(LocalDigest.of(shard, PgMeta.objectKey(pg.id.pool(), name)), done);
  }

  /**
   * DEEP_SCRUB from a client: scrubs {@code pg} once the OSD's scrub slot is free (or joins the
   * scrub of it under way) and completes {@code done} with the report.
   */
  void onDemand(Pg pg, long epoch, CompletableFuture<ScrubReport> done) {
    if (!shard.primary.serving(pg, epoch, done)) {
      return;
    }
    CompletableFuture<ScrubReport> run = pg.scrubRunning;
    if (run == null) {
      run = new CompletableFuture<>();
      pg.scrubRunning = run;
      long round = pg.peeringRound;
      CompletableFuture<ScrubReport> mine = run;
      slot().take(() -> shard.executor.execute(() -> begin(pg, round, mine)));
    }
    Futures.forward(run, done);
  }

  /** The slot is this scrub's: it starts unless the PG moved on meanwhile. */
  private void begin(Pg pg, long round, CompletableFuture<ScrubReport> run) {
    if (pg.peeringRound != round || pg.state != Pg.State.ACTIVE) {
      finish(pg, round, run, null, new CancellationException("pg " + pg.id + " is not active"));
      return;
    }
    scrub(pg, round, run);
  }

  /**
   * The schedule, with the OSD's slot taken: scrubs the PG of this shard whose last deep scrub is
   * the oldest and at least an interval ago, among those this OSD is the primary of and that are
   * active+clean; false (the slot still the caller's) when none is due.
   */
  boolean startDue(long nowMillis) {
    long interval = slot().intervalMillis();
    Pg due = null;
    for (Pg pg : shard.loaded()) {
      if (pg.primary == shard.self()
          && pg.state == Pg.State.ACTIVE
          && clean(pg)
          && pg.scrubRunning == null
          && nowMillis - pg.lastDeepScrubMillis >= interval
          && (due == null || pg.lastDeepScrubMillis < due.lastDeepScrubMillis)) {
        due = pg;
      }
    }
    if (due == null) {
      return false;
    }
    CompletableFuture<ScrubReport> run = new CompletableFuture<>();
    due.scrubRunning = run;
    scrub(due, due.peeringRound, run);
    return true;
  }

  /** Every member of the pool's size is in the acting set. */
  private static boolean clean(Pg pg) {
    return pg.acting.size() >= pg.size && pg.recoveringMembers.isEmpty();
  }

  private static void check(Pg pg, long round) {
    if (pg.peeringRound != round || pg.state != Pg.State.ACTIVE) {
      throw new CancellationException("pg " + pg.id + " started a new interval");
    }
  }

  private void scrub(Pg pg, long round, CompletableFuture<ScrubReport> run) {
    ScrubTally tally = new ScrubTally(pg.id.toString(), shard.self());
    LOG.info("pg " + pg.id + " deep scrub starts on acting " + pg.acting);
    CompletableFuture<Void> all;
    try {
      LinkedHashSet<String> names = new LinkedHashSet<>(PgListing.local(shard, pg));
      CompletableFuture<Void> listed = CompletableFuture.completedFuture(null);
      for (int osd : pg.replicas(shard.self())) {
        listed =
            listed.thenComposeAsync(
                v -> PgListing.member(shard, pg, osd, "", names, () -> check(pg, round)),
                shard.executor);
      }
      all =
          listed.thenComposeAsync(
              v ->
                  PgListing.forEach(
                      new ArrayList<>(names),
                      0,
                      name -> paced(object(pg, round, name, tally), tally),
                      shard.executor),
              shard.executor);
    } catch (RuntimeException e) {
      all = CompletableFuture.failedFuture(e);
    }
    all.whenCompleteAsync((v, e) -> finish(pg, round, run, tally, e), shard.executor);
  }

  /**
   * {@code compared}, then a pause as long as reading its blocks takes at the OSD's scrub rate (the
   * object's hold is released by then: writes to it do not wait for the pause).
   */
  private CompletableFuture<Void> paced(CompletableFuture<Void> compared, ScrubTally tally) {
    long before = tally.blocks();
    return compared.thenCompose(
        v ->
            shard.after(
                slot().pauseMillisFor((tally.blocks() - before) * (long) ObjectDigest.BLOCK)));
  }

  /** Compares (and repairs) one object, holding it meanwhile. */
  private CompletableFuture<Void> object(Pg pg, long round, String name, ScrubTally tally) {
    check(pg, round);
    Pg.Hold hold = pg.hold(name);
    CompletableFuture<Void> step;
    try {
      step =
          drain(pg, name)
              .thenComposeAsync(
                  v -> {
                    check(pg, round);
                    return digests(pg, name, pg.acting);
                  },
                  shard.executor)
              .thenComposeAsync(copies -> judge(pg, round, name, copies, tally), shard.executor);
    } catch (RuntimeException e) {
      step = CompletableFuture.failedFuture(e);
    }
    return step.whenCompleteAsync((v, e) -> hold.release(), shard.executor);
  }

  /** Completes once the ops in flight on object {@code name} are over (acknowledged or failed). */
  private static CompletableFuture<Void> drain(Pg pg, String name) {
    List<CompletableFuture<Void>> waits = new ArrayList<>();
    for (InFlightOp op : pg.inFlight.values()) {
      if (op.entry.object().equals(name)) {
        CompletableFuture<Void> over = new CompletableFuture<>();
        op.join(over);
        waits.add(over.exceptionally(e -> null));
      }
    }
    return CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new));
  }

  /** Each of {@code osds}' copy of object {@code name}, by OSD in that order. */
  private CompletableFuture<Map<Integer, ObjectDigest>> digests(
      Pg pg, String name, List<Integer> osds) {
    Map<Integer, CompletableFuture<ObjectDigest>> asked = new LinkedHashMap<>();
    for (int osd : osds) {
      asked.put(
          osd,
          osd == shard.self()
              ? LocalDigest.of(shard, PgMeta.objectKey(pg.id.pool(), name))
              : shard
                  .services
                  .peers()
                  .blockCrcs(osd, shard.address(osd), shard.epoch(), pg.id, name));
    }
    return CompletableFuture.allOf(asked.values().toArray(CompletableFuture[]::new))
        .thenApply(
            v -> {
              Map<Integer, ObjectDigest> copies = new LinkedHashMap<>();
              asked.forEach((osd, d) -> copies.put(osd, d.join()));
              return copies;
            });
  }

  private CompletableFuture<Void> judge(
      Pg pg, long round, String name, Map<Integer, ObjectDigest> copies, ScrubTally tally) {
    check(pg, round);
    ScrubCompare.Verdict v =
        ScrubCompare.decide(name, shard.self(), copies, pg.objectVersions.get(name));
    switch (v.kind()) {
      case GONE -> {}
      case SKIPPED -> tally.skipped(name, v.reason());
      case CONSISTENT -> tally.compared(v.blocks());
      case UNREPAIRABLE -> {
        tally.compared(v.blocks());
        v.bad().forEach(tally::found);
      }
      case INCONSISTENT -> {
        tally.compared(v.blocks());
        return repair(pg, round, name, v, copies.get(v.authority()))
            .thenAccept(repaired -> repaired.forEach(tally::found));
      }
    }
    return CompletableFuture.completedFuture(null);
  }

  /**
   * Gives every bad copy the authority's (pulled here first when this OSD's is bad, then pushed
   * from here), then reads each again: the findings, marked repaired where it now matches.
   */
  private CompletableFuture<List<Finding>> repair(
      Pg pg, long round, String name, ScrubCompare.Verdict v, ObjectDigest good) {
    Runnable check = () -> check(pg, round);
    List<Integer> bad = new ArrayList<>();
    for (Finding f : v.bad()) {
      bad.add(f.osd());
    }
    CompletableFuture<Void> moved =
        bad.contains(shard.self())
            ? shard.transfer.pull(pg, v.authority(), name, check, bytes -> {})
            : CompletableFuture.completedFuture(null);
    for (int osd : bad) {
      if (osd != shard.self()) {
        moved =
            moved.thenComposeAsync(
                x -> shard.transfer.push(pg, osd, name, check, bytes -> {}), shard.executor);
      }
    }
    return moved
        .thenComposeAsync(x -> digests(pg, name, bad), shard.executor)
        .handleAsync(
            (after, e) -> {
              if (e != null && interrupted(pg, round, e)) {
                throw new CompletionException(ObjectOpsException.unwrap(e));
              }
              List<Finding> out = new ArrayList<>();
              for (Finding f : v.bad()) {
                boolean fixed = e == null && after.get(f.osd()).sameAs(good);
                String problem =
                    e != null
                        ? f.problem() + "; repair failed: " + ObjectOpsException.unwrap(e)
                        : fixed ? f.problem() : f.problem() + "; still differs after repair";
                out.add(
                    new Finding(f.object(), f.osd(), problem, f.badBlocks(), f.blocks(), fixed));
              }
              return out;
            },
            shard.executor);
  }

  private static boolean interrupted(Pg pg, long round, Throwable e) {
    return pg.peeringRound != round
        || ObjectOpsException.unwrap(e) instanceof CancellationException;
  }

  /** The scrub is over: its slot freed, its report (or failure) delivered, logged and counted. */
  @SuppressWarnings("ReferenceEquality") // this very scrub, not an equal one
  private void finish(
      Pg pg, long round, CompletableFuture<ScrubReport> run, ScrubTally tally, Throwable e) {
    if (pg.scrubRunning == run) {
      pg.scrubRunning = null;
    }
    slot().release();
    if (e != null) {
      Throwable cause = ObjectOpsException.unwrap(e);
      ObjectOpsException why;
      if (interrupted(pg, round, cause)) {
        why =
            new ObjectOpsException(
                Code.TRY_AGAIN, "pg " + pg.id + " changed its interval: deep scrub stopped");
      } else if (cause instanceof ObjectOpsException o && o.code() != Code.TRY_AGAIN) {
        why = new ObjectOpsException(o.code(), "pg " + pg.id + " deep scrub: " + o.getMessage());
      } else {
        why = new ObjectOpsException(Code.TRY_AGAIN, "pg " + pg.id + " deep scrub: " + cause);
      }
      LOG.warning(why.getMessage());
      run.completeExceptionally(why);
      return;
    }
    ScrubReport report = tally.report();
    pg.scrubErrors = report.unrepaired();
    pg.lastDeepScrubMillis = System.currentTimeMillis();
    stamp(pg);
    slot().count(report.objects(), report.inconsistent(), report.repaired());
    LOG.info(
        "pg "
            + pg.id
            + " deep scrub done on acting "
            + pg.acting
            + ": "
            + report.objects()
            + " objects, "
            + report.blocks()
            + " blocks compared, "
            + report.inconsistent()
            + " inconsistent, "
            + report.repaired()
            + " repaired, "
            + report.skipped()
            + " skipped, in "
            + report.millis()
            + " ms");
    run.complete(report);
  }

  /** Keeps when this PG was scrubbed in the store, so that a restart does not scrub it again. */
  private void stamp(Pg pg) {
    var meta = PgMeta.metaKey(pg.id);
    byte[] millis = ByteBuffer.allocate(8).putLong(pg.lastDeepScrubMillis).array();
    shard.store.submit(
        new Transaction().touch(meta).setXattr(meta, PgMeta.DEEP_SCRUB_STAMP, millis),
        (v, f) -> {
          if (f != null) {
            LOG.warning("pg " + pg.id + ": deep scrub stamp not kept: " + f.getMessage());
          }
        });
  }

  /** The stamp {@link #stamp} kept, from the PG's metadata attributes, or {@code otherwise}. */
  static long stampOf(Map<String, byte[]> attrs, long otherwise) {
    byte[] v = attrs == null ? null : attrs.get(PgMeta.DEEP_SCRUB_STAMP);
    return v != null && v.length == 8 ? ByteBuffer.wrap(v).getLong() : otherwise;
  }
}
