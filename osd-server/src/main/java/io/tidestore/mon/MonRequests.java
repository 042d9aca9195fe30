package io.tidestore.mon;

import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.CommandCodec;
import io.tidestore.cluster.map.MapCodec;
import io.tidestore.cluster.map.MapCommand;
import io.tidestore.cluster.map.OsdInfo;
import io.tidestore.cluster.pghistory.PgActivations;
import io.tidestore.cluster.pgstats.PgStates;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.cluster.wire.MonFrame;
import io.tidestore.cluster.wire.MonMessages;
import io.tidestore.cluster.wire.PgHistoryMessages;
import io.tidestore.cluster.wire.WireException;
import java.io.IOException;
import java.util.List;
import java.util.UUID;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

/**
 * What the monitor answers to each request of the monitor protocol (docs/cluster.md): map changes
 * go through {@link Proposer} (committed by the group, whichever monitor was asked), heartbeats to
 * the {@link FailureDetector} and their PG reports to {@link PgStates} (every monitor gets them, so
 * any monitor answers PG_STATS), reads come from the leader, or from this monitor's own map when no
 * leader answers.
 */
final class MonRequests {
  private final MapStateMachine stateMachine;
  private final Proposer proposer;
  private final FailureDetector detector;
  private final Supplier<MonMessages.MonStatus> status;
  private final PgStates pgStates = new PgStates();

  /** A reply's type, payload, and the epoch it reflects. */
  record Reply(int type, byte[] payload, long epoch) {}

  MonRequests(
      MapStateMachine stateMachine,
      Proposer proposer,
      FailureDetector detector,
      Supplier<MonMessages.MonStatus> status) {
    this.stateMachine = stateMachine;
    this.proposer = proposer;
    this.detector = detector;
    this.status = status;
  }

  ClusterMap localMap() {
    return stateMachine.map();
  }

  /**
   * @param subscribe called for a SUBSCRIBE with the epoch the subscriber already has
   */
  Reply handle(MonFrame request, LongConsumer subscribe) throws IOException, InterruptedException {
    return switch (request.type()) {
      case MonFrame.BOOT -> boot(MonMessages.boot(request.payload()));
      case MonFrame.HEARTBEAT -> {
        MonMessages.Heartbeat hb = MonMessages.heartbeat(request.payload());
        detector.heartbeat(hb.osdId(), hb.upFrom());
        pgStates.record(hb.osdId(), hb.upFrom(), hb.pgs(), System.nanoTime());
        yield ok(new byte[0], 0);
      }
      case MonFrame.PG_STATS -> {
        ClusterMap map = readMap();
        yield ok(MonMessages.pgSummary(pgStates.summarize(map, System.nanoTime())), map.epoch());
      }
      case MonFrame.GET_MAP -> {
        MonMessages.epoch(request.payload());
        ClusterMap map = readMap();
        yield new Reply(MonFrame.MAP, MapCodec.encode(map), map.epoch());
      }
      case MonFrame.SUBSCRIBE -> {
        subscribe.accept(MonMessages.epoch(request.payload()));
        yield ok(new byte[0], 0);
      }
      case MonFrame.POOL_CREATE, MonFrame.POOL_REMOVE -> pool(request);
      case MonFrame.MON_STATUS -> ok(MonMessages.monStatus(status.get()), 0);
      case MonFrame.PG_ACTIVATED -> activated(request);
      case MonFrame.PG_HISTORY -> {
        // Through the leader only: an answer from this monitor's own state could miss an
        // activation just committed, and a primary would then peer without its members.
        List<PgId> pgs = PgHistoryMessages.pgIds(request.payload());
        yield ok(PgHistoryMessages.activations(proposer.readActivations(pgs)), 0);
      }
      default ->
          throw new WireException(
              WireException.BAD_REQUEST, "unknown monitor request type " + request.type());
    };
  }

  private ClusterMap readMap() throws InterruptedException {
    try {
      return proposer.readMap();
    } catch (WireException e) {
      // No leader: what this monitor has is the best answer (status must work while electing).
      return stateMachine.map();
    }
  }

  private Reply boot(MonMessages.Boot boot) throws WireException, InterruptedException {
    ClusterMap map = stateMachine.map();
    if (!map.initialized()) {
      throw new WireException(WireException.NOT_READY, "the cluster is not created yet");
    }
    UUID none = new UUID(0, 0);
    if (!boot.fsid().equals(none) && !boot.fsid().equals(map.fsid())) {
      throw new WireException(
          WireException.REFUSED,
          "this OSD belongs to cluster "
              + boot.fsid()
              + ", these monitors run cluster "
              + map.fsid());
    }
    MapCommand.Boot command = boot.boot();
    Proposer.Result result =
        proposer.propose(
            new MapCommand.Boot(
                command.requestedId(),
                command.uuid(),
                command.host(),
                command.weight(),
                command.address(),
                command.adminAddress(),
                System.currentTimeMillis()));
    if (result.error() != null) {
      throw new WireException(WireException.REFUSED, result.error());
    }
    ClusterMap after = stateMachine.map();
    long upFrom = after.osd(result.osdId()).map(OsdInfo::upFrom).orElse(result.epoch());
    detector.heartbeat(result.osdId(), upFrom);
    return ok(
        MonMessages.bootReply(new MonMessages.BootReply(result.osdId(), after.fsid(), upFrom)),
        result.epoch());
  }

  private Reply pool(MonFrame request) throws IOException, InterruptedException {
    MapCommand command = CommandCodec.decode(request.payload());
    boolean create = request.type() == MonFrame.POOL_CREATE;
    if (create
        ? !(command instanceof MapCommand.PoolCreate)
        : !(command instanceof MapCommand.PoolRemove)) {
      throw new WireException(WireException.BAD_REQUEST, "request carries the wrong command");
    }
    Proposer.Result result = proposer.propose(command);
    if (result.error() != null) {
      throw new WireException(WireException.REFUSED, result.error());
    }
    return ok(new byte[0], result.epoch());
  }

  private Reply activated(MonFrame request) throws IOException, InterruptedException {
    byte[] entry = request.payload();
    PgActivations.decodeCommand(entry); // refused here, before the log, when unreadable
    Proposer.Result result = proposer.propose(entry);
    if (result.error() != null) {
      throw new WireException(WireException.REFUSED, result.error());
    }
    return ok(PgHistoryMessages.pgIds(result.refused()), result.epoch());
  }

  private static Reply ok(byte[] payload, long epoch) {
    return new Reply(MonFrame.OK, payload, epoch);
  }
}
