package io.tidestore.osd.pg;

import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.PoolInfo;
import io.tidestore.cluster.pg.Eversion;
import io.tidestore.cluster.pg.PgLog;
import io.tidestore.cluster.pg.PgLogEntry;
import io.tidestore.cluster.pgstats.PgInterval;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.cluster.placement.PgMapping;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.ops.ScrubReport;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * One PG on this OSD: its log, its current interval (acting set and primary, with each member's
 * incarnation, from this OSD's map), its state, and what a primary tracks of the ops in flight and
 * of the requests it already applied. Owned by the thread of the PG's shard.
 */
final class Pg {
  /** Where a PG stands on this OSD. */
  enum State {
    /** This OSD is not its primary: it only applies the primary's ops. */
    REPLICA,
    /** The primary asks the acting set for their logs' heads. */
    PEERING,
    /** Every member has the same log: the primary takes ops. */
    ACTIVE,
    /** The primary brings members (or itself) up to date; ops wait. */
    RECOVERING,
    /** Fewer members than min_size: nothing is acknowledged until there are enough again. */
    UNDERSIZED,
    /** The members' logs differ: they wait for recovery, which the next stop brings. */
    NEEDS_RECOVERY,
    /** No member is up, or the pool is gone. */
    DOWN,
    /**
     * No member of the newest recorded activation that kept it answers (Ceph's {@code down}): only
     * they surely hold every acknowledged write, so the PG waits for one of them to come back.
     */
    HISTORY_DOWN
  }

  /** A client's request, as the log remembers it for resends. */
  record RequestId(long client, long tid) {}

  final PgId id;
  PgLog log;
  State state = State.DOWN;
  List<Integer> acting = List.of();
  int primary = -1;
  int minSize;

  /** The pool's size: fewer acting members leave the PG degraded. */
  int size;

  /** Whether the recovery under way copies every object (a backfill) rather than the log's. */
  boolean backfilling;

  /**
   * Acting members an async recovery is bringing up to date while the PG serves: ops are not sent
   * to them (they are acknowledged once the others have them), until peering takes them back.
   */
  final java.util.Set<Integer> recoveringMembers = new java.util.HashSet<>();

  /**
   * The epoch of the newest activation this copy was a member of, 0 for none (kept in the store).
   */
  long lastActive;

  /** The monitors' record of the PG's newest activation, as this primary last read or wrote it. */
  io.tidestore.cluster.pghistory.PgActivation lastActivation;

  /** Each member's {@code last_active} as it answered this peering round (or was activated in). */
  final HashMap<Integer, Long> peerLastActive = new HashMap<>();

  /** A primary that has decided to serve waits for its members and the monitors to record it. */
  boolean activating;

  /** The epoch this interval started in (as this OSD saw it) and what identifies it. */
  long intervalStart;

  private String intervalKey = "";

  /** Counts peering rounds, so that the answers of an abandoned round are ignored. */
  long peeringRound;

  /** Requests in the log, for resends: applied once, acknowledged again. */
  final HashMap<RequestId, Eversion> applied = new HashMap<>();

  /** The newest version of each object in the log or staged (a new entry's prior version). */
  final HashMap<String, Eversion> objectVersions = new HashMap<>();

  /** The newest entry a replica staged (it may not be durable yet), or null. */
  Eversion lastStaged;

  /**
   * The oldest entry whose transaction failed here as a replica since this copy was last recovered,
   * or null: entries staged after it may have committed, so the log can have a gap, and this copy
   * vouches only for what precedes it ({@link #vouchedHead}).
   */
  Eversion failedAt;

  /** The primary's ops in flight, by version. */
  final TreeMap<Eversion, InFlightOp> inFlight = new TreeMap<>();

  /**
   * Inconsistencies the last deep scrub here left unrepaired (0 after a clean or fully repaired
   * one): the PG is {@code +inconsistent} while it is not 0.
   */
  int scrubErrors;

  /**
   * Wall-clock ms of the end of the last deep scrub of this PG by this OSD as primary (kept in the
   * store, {@link io.tidestore.cluster.pg.PgMeta#DEEP_SCRUB_STAMP}); when none ever ran, when the
   * PG was loaded here, so that a first scheduled scrub comes one interval later.
   */
  long lastDeepScrubMillis;

  /** The deep scrub of this PG under way here, or null. */
  CompletableFuture<ScrubReport> scrubRunning;

  /** The object a deep scrub compares and repairs now, or null: client ops to it wait. */
  private Hold scrubHold;

  private final ArrayDeque<Runnable> waitingForScrub = new ArrayDeque<>();

  Pg(PgId id, PgLog log) {
    this.id = id;
    this.log = log;
    for (PgLogEntry e : log.entries().values()) {
      remember(e);
    }
  }

  /** Whether object {@code name} is held by a deep scrub (client ops to it wait). */
  boolean heldByScrub(String name) {
    return scrubHold != null && name.equals(scrubHold.name);
  }

  /**
   * Runs {@code retry} once the object a deep scrub holds is released; it checks again whether the
   * PG serves.
   */
  void afterScrubHold(Runnable retry) {
    waitingForScrub.add(retry);
  }

  /** A deep scrub's hold on one object: {@link #release} frees it if it is still the PG's. */
  final class Hold {
    private final String name;

    private Hold(String name) {
      this.name = name;
    }

    /** Frees the object (unless a new interval did already): the ops that waited for it run. */
    void release() {
      if (scrubHold == this) {
        releaseHold();
      }
    }
  }

  /** A deep scrub holds object {@code name}: client ops to it wait until the hold is released. */
  Hold hold(String name) {
    if (scrubHold != null) {
      throw new IllegalStateException("pg " + id + ": " + scrubHold.name + " is held already");
    }
    scrubHold = new Hold(name);
    return scrubHold;
  }

  /** Frees the held object, if any (a new interval): the ops that waited run, in arrival order. */
  void releaseHold() {
    scrubHold = null;
    while (!waitingForScrub.isEmpty() && scrubHold == null) {
      waitingForScrub.poll().run();
    }
  }

  /** Recovery rewrote the log: take the store's, and what this PG remembers of it. */
  void replaceLog(PgLog newLog) {
    log = newLog;
    applied.clear();
    objectVersions.clear();
    lastStaged = null;
    failedAt = null;
    for (PgLogEntry e : log.entries().values()) {
      remember(e);
    }
  }

  /**
   * The newest entry this copy holds with every entry before it: the log's head, or after a failed
   * replicated op the entry before the failed one (so that peering sees this copy behind, and
   * recovery compares the whole logs and fills the gap).
   */
  Eversion vouchedHead() {
    if (failedAt == null) {
      return log.head();
    }
    Eversion before = log.entries().lowerKey(failedAt);
    return before == null ? log.tail() : before;
  }

  /** Notes an entry this PG staged or took from the log. */
  void remember(PgLogEntry e) {
    applied.put(new RequestId(e.client(), e.tid()), e.version());
    objectVersions.put(e.object(), e.version());
  }

  /**
   * Undoes {@link #remember} for an entry whose transaction failed here: it is not in this log, so
   * a resend of its request is not "applied", and the object keeps its version from before.
   */
  void forget(PgLogEntry e) {
    applied.remove(new RequestId(e.client(), e.tid()), e.version());
    if (e.version().equals(objectVersions.get(e.object()))) {
      if (e.prior().equals(Eversion.ZERO)) {
        objectVersions.remove(e.object());
      } else {
        objectVersions.put(e.object(), e.prior());
      }
    }
  }

  /** A trim to {@code newTail} committed: the log, and what this PG remembers of it, forget it. */
  void trimmed(Eversion newTail) {
    for (PgLogEntry e : log.trimmed(newTail)) {
      applied.remove(new RequestId(e.client(), e.tid()), e.version());
      objectVersions.remove(e.object(), e.version());
    }
  }

  /**
   * Moves to {@code map}'s view of this PG; returns true when that starts a new interval (another
   * acting set or primary, or a member that restarted since), which the caller answers by peering
   * (as primary) or by waiting for the new primary.
   */
  boolean advance(ClusterMap map, PgMapping mapping, int self) {
    PoolInfo pool = map.pools().get(id.pool());
    List<Integer> newActing = mapping == null ? List.of() : mapping.acting();
    int newPrimary = mapping == null ? -1 : mapping.actingPrimary();
    String key = PgInterval.key(map, mapping);
    minSize = pool == null ? Integer.MAX_VALUE : pool.minSize();
    size = pool == null ? Integer.MAX_VALUE : pool.size();
    if (key.equals(intervalKey)) {
      return false;
    }
    intervalKey = key;
    backfilling = false;
    activating = false;
    recoveringMembers.clear();
    intervalStart = map.epoch();
    acting = List.copyOf(newActing);
    primary = newPrimary;
    peeringRound++;
    if (pool == null || newPrimary < 0) {
      state = State.DOWN;
    } else if (newPrimary != self) {
      state = State.REPLICA;
    } else {
      state = State.PEERING;
    }
    return true;
  }

  /**
   * STALE_MAP for a request sent on map {@code epoch}, before this interval began; {@code extra}
   * ends the message.
   */
  ObjectOpsException staleFor(long epoch, String sender, String extra) {
    return new ObjectOpsException(
        ObjectOpsException.Code.STALE_MAP,
        "pg "
            + id
            + " changed in epoch "
            + intervalStart
            + ", after the "
            + sender
            + "'s "
            + epoch
            + extra);
  }

  /**
   * The entries this PG's log keeps on an OSD holding {@code pgCopies} PG copies: few when it is
   * clean, many while a member is missing or being recovered (as Ceph does), so that the member,
   * once back, is recovered from the log rather than backfilled.
   */
  int logKeep(int pgCopies) {
    boolean clean = acting.size() >= size && recoveringMembers.isEmpty() && !backfilling;
    return clean ? PgLog.KEEP : PgLog.keepNotClean(pgCopies);
  }

  /** The members a primary sends its ops to: the others of the acting set but those recovering. */
  List<Integer> writeTargets(int self) {
    List<Integer> targets = replicas(self);
    targets.removeAll(recoveringMembers);
    return targets;
  }

  /** The other members of the acting set. */
  List<Integer> replicas(int self) {
    List<Integer> others = new ArrayList<>(acting.size());
    for (int osd : acting) {
      if (osd != self) {
        others.add(osd);
      }
    }
    return others;
  }

  /** What identifies this interval ({@link PgInterval#key}): the monitors match reports by it. */
  String intervalKey() {
    return intervalKey;
  }

  /**
   * The state in Ceph's words, as this OSD reports it to the monitors: only {@code active} PGs take
   * client ops (recovery here holds them, so a recovering PG is not active); {@code clean} when the
   * acting set has the pool's size; {@code degraded} while some member lacks data or is missing;
   * {@code +scrubbing+deep} while a deep scrub runs, {@code +inconsistent} while the last one left
   * a copy unrepaired.
   */
  String stateName() {
    String base = baseStateName();
    if (scrubRunning != null && !scrubRunning.isDone()) {
      base += "+scrubbing+deep";
    }
    // Ceph's word for a PG whose last deep scrub left a bad copy it could not repair.
    return scrubErrors > 0 ? base + "+inconsistent" : base;
  }

  private String baseStateName() {
    return switch (state) {
      case REPLICA -> "replica";
      case PEERING -> activating ? "activating" : "peering";
      case ACTIVE ->
          !recoveringMembers.isEmpty()
              ? (backfilling ? "active+backfilling" : "active+recovering")
                  + (acting.size() < size ? "+undersized" : "")
                  + "+degraded"
              : acting.size() < size ? "active+undersized+degraded" : "active+clean";
      case UNDERSIZED -> "undersized+degraded+peered";
      case RECOVERING -> backfilling ? "backfilling+degraded" : "recovering+degraded";
      case NEEDS_RECOVERY -> "recovery_wait+degraded";
      case DOWN, HISTORY_DOWN -> "down";
    };
  }
}
