package io.tidestore.mon;

import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.CommandCodec;
import io.tidestore.cluster.map.MapChanges;
import io.tidestore.cluster.map.MapCodec;
import io.tidestore.cluster.map.MapCommand;
import io.tidestore.cluster.map.MapFormatException;
import io.tidestore.cluster.pghistory.PgActivation;
import io.tidestore.cluster.pghistory.PgActivations;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.cluster.wire.PgHistoryMessages;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.logging.Logger;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;

/**
 * The cluster map as a Ratis state machine, after Ratis' own examples: each committed log entry is
 * a {@link MapCommand} that {@link MapChanges#apply} turns into the next map, or a batch of PG
 * activations recorded beside it ({@link PgActivations}); a query returns the encoded map or some
 * PGs' activations; a snapshot is both in one file ({@link MonSnapshot}, with Ratis' MD5 beside
 * it), after which Ratis purges the log up to it. Ratis calls {@link #applyTransaction} from one
 * thread, in log order; readers see an immutable map through a volatile field.
 */
final class MapStateMachine extends BaseStateMachine {
  private static final Logger LOG = Logger.getLogger(MapStateMachine.class.getName());

  private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
  private final Consumer<ClusterMap> onChange;
  private final Object applyLock = new Object();
  private volatile ClusterMap map = ClusterMap.EMPTY;
  private volatile PgActivations activations = PgActivations.EMPTY;

  /** A read-only query's first byte: the newest activation of each PG named after it. */
  static final byte QUERY_ACTIVATIONS = 1;

  /**
   * @param onChange called after every change of the map, on Ratis' apply thread: it must not block
   *     (publishing to subscribers is handed off)
   */
  MapStateMachine(Consumer<ClusterMap> onChange) {
    this.onChange = onChange;
  }

  /** The map as this monitor has applied it. */
  ClusterMap map() {
    return map;
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage)
      throws IOException {
    super.initialize(server, groupId, raftStorage);
    // RUNNING, so that pause() (before a snapshot from the leader is installed) can reach PAUSED,
    // which Ratis asserts before it calls reinitialize().
    getLifeCycle()
        .startAndTransition(
            () -> {
              storage.init(raftStorage);
              load(storage.loadLatestSnapshot());
            },
            IOException.class);
  }

  /**
   * Ratis stops applying before it installs a snapshot the leader sent (this monitor was too far
   * behind for the log); {@link #reinitialize} resumes.
   */
  @Override
  public void pause() {
    if (getLifeCycleState() == LifeCycle.State.RUNNING) {
      getLifeCycle().transition(LifeCycle.State.PAUSING);
      getLifeCycle().transition(LifeCycle.State.PAUSED);
    }
  }

  @Override
  public void reinitialize() throws IOException {
    // The installed snapshot replaces the map; applying resumes after its last index.
    load(storage.loadLatestSnapshot());
    if (getLifeCycleState() == LifeCycle.State.PAUSED) {
      getLifeCycle().transition(LifeCycle.State.STARTING);
      getLifeCycle().transition(LifeCycle.State.RUNNING);
    }
  }

  @Override
  public StateMachineStorage getStateMachineStorage() {
    return storage;
  }

  private void load(SingleFileSnapshotInfo snapshot) throws IOException {
    if (snapshot == null) {
      return;
    }
    Path file = snapshot.getFile().getPath();
    if (!Files.exists(file)) {
      LOG.warning("snapshot " + file + " is missing; replaying the log from its start");
      return;
    }
    if (snapshot.getFile().getFileDigest() != null) {
      MD5FileUtil.verifySavedMD5(file.toFile(), snapshot.getFile().getFileDigest());
    }
    TermIndex last = SimpleStateMachineStorage.getTermIndexFromSnapshotFile(file.toFile());
    MonSnapshot state = MonSnapshot.decode(Files.readAllBytes(file));
    ClusterMap loaded = state.map();
    synchronized (applyLock) {
      map = loaded;
      activations = state.activations();
      setLastAppliedTermIndex(last);
    }
    LOG.info("map epoch " + loaded.epoch() + " loaded from snapshot " + file.getFileName());
    onChange.accept(loaded);
  }

  @Override
  public long takeSnapshot() throws IOException {
    ClusterMap current;
    PgActivations currentActivations;
    TermIndex last;
    synchronized (applyLock) {
      current = map;
      currentActivations = activations;
      last = getLastAppliedTermIndex();
    }
    if (last == null || last.getIndex() == RaftLog.INVALID_LOG_INDEX) {
      return RaftLog.INVALID_LOG_INDEX;
    }
    File file = storage.getSnapshotFile(last.getTerm(), last.getIndex());
    Path temp = file.toPath().resolveSibling(file.getName() + ".tmp");
    Files.write(temp, new MonSnapshot(current, currentActivations).encode());
    Files.move(temp, file.toPath(), StandardCopyOption.ATOMIC_MOVE);
    var md5 = MD5FileUtil.computeAndSaveMd5ForFile(file);
    storage.updateLatestSnapshot(
        new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), last));
    LOG.fine("snapshot of map epoch " + current.epoch() + " at log index " + last.getIndex());
    return last.getIndex();
  }

  /**
   * Waits (at most {@code timeout}) until this monitor has applied the entry at {@code index}: a
   * proposal's reply comes from the leader, and this monitor may apply it a moment later.
   */
  void awaitApplied(long index, java.time.Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (applyLock) {
      while (appliedIndex() < index) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return;
        }
        applyLock.wait(Math.max(1, left / 1_000_000));
      }
    }
  }

  private long appliedIndex() {
    TermIndex last = getLastAppliedTermIndex();
    return last == null ? RaftLog.INVALID_LOG_INDEX : last.getIndex();
  }

  @Override
  public void notifyTermIndexUpdated(long term, long index) {
    // Configuration and no-op entries advance the applied index too; wake waiters for them.
    super.notifyTermIndexUpdated(term, index);
    synchronized (applyLock) {
      applyLock.notifyAll();
    }
  }

  /**
   * A read-only request: empty for the map; {@link #QUERY_ACTIVATIONS} and PG ids for their
   * activations ({@link PgHistoryMessages}).
   */
  @Override
  public CompletableFuture<Message> query(Message request) {
    ByteString content = request.getContent();
    if (content.isEmpty()) {
      return CompletableFuture.completedFuture(
          Message.valueOf(ByteString.copyFrom(MapCodec.encode(map))));
    }
    try {
      if (content.byteAt(0) != QUERY_ACTIVATIONS) {
        throw new MapFormatException("unknown query " + content.byteAt(0));
      }
      List<PgId> pgs = PgHistoryMessages.pgIds(content.substring(1).toByteArray());
      PgActivations current = activations;
      List<PgActivation> found = new ArrayList<>(pgs.size());
      for (PgId pg : pgs) {
        found.add(current.get(pg));
      }
      return CompletableFuture.completedFuture(
          Message.valueOf(ByteString.copyFrom(PgHistoryMessages.activations(found))));
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    byte[] data = entry.getStateMachineLogEntry().getLogData().toByteArray();
    MapChanges.Outcome outcome;
    List<PgId> refused = List.of();
    ClusterMap before;
    synchronized (applyLock) {
      before = map;
      try {
        if (PgActivations.isCommand(data)) {
          // Recorded beside the map: the map does not change.
          PgActivations.Outcome recorded =
              activations.apply(before, PgActivations.decodeCommand(data));
          activations = recorded.activations();
          refused = recorded.refused();
          outcome = new MapChanges.Outcome(before, null, -1);
        } else {
          MapCommand command = CommandCodec.decode(data);
          outcome = MapChanges.apply(before, command);
          if (command instanceof MapCommand.PoolRemove) {
            activations = activations.keepPoolsOf(outcome.map());
          }
        }
      } catch (MapFormatException e) {
        // Never proposed by a monitor of this version (they encode what they validated); refuse
        // it the same way on every monitor so their maps stay equal.
        outcome = new MapChanges.Outcome(before, "unreadable command: " + e.getMessage(), -1);
      }
      map = outcome.map();
      updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
      applyLock.notifyAll();
    }
    if (outcome.map() != before) {
      onChange.accept(outcome.map());
    }
    return CompletableFuture.completedFuture(
        Message.valueOf(ByteString.copyFrom(reply(outcome, refused))));
  }

  /**
   * The reply a proposer decodes with {@link Proposer}: error (or ""), osd id, epoch, and the PGs
   * whose activation was refused.
   */
  private static byte[] reply(MapChanges.Outcome outcome, List<PgId> refused) {
    var bytes = new java.io.ByteArrayOutputStream();
    try (var out = new java.io.DataOutputStream(bytes)) {
      out.writeUTF(outcome.error() == null ? "" : outcome.error());
      out.writeInt(outcome.osdId());
      out.writeLong(outcome.map().epoch());
      out.write(PgHistoryMessages.pgIds(refused));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }
}
