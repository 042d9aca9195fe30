package io.tidestore.mon;

import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.CommandCodec;
import io.tidestore.cluster.map.MapCodec;
import io.tidestore.cluster.map.MapCommand;
import io.tidestore.cluster.pghistory.PgActivation;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.cluster.wire.PgHistoryMessages;
import io.tidestore.cluster.wire.WireException;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * Proposes map commands to the group through a Ratis client (which finds the leader itself) and
 * waits for them to be committed and applied; reads the map linearizably through the leader.
 */
final class Proposer implements AutoCloseable {
  private final RaftClient client;
  private final Duration timeout;
  private final MapStateMachine local;

  /** What the command did once applied; {@code refused}: the PGs whose activation was not kept. */
  record Result(String error, int osdId, long epoch, List<PgId> refused) {}

  Proposer(RaftClient client, Duration timeout, MapStateMachine local) {
    this.client = client;
    this.timeout = timeout;
    this.local = local;
  }

  /**
   * Commits {@code command} and returns what applying it did, once this monitor applied it too (so
   * that a read here right after sees it).
   *
   * @throws WireException NO_QUORUM when it was not committed within the timeout
   */
  Result propose(MapCommand command) throws WireException, InterruptedException {
    return propose(CommandCodec.encode(command));
  }

  /** {@link #propose(MapCommand)} of a log entry already encoded (a PG activation batch). */
  Result propose(byte[] entry) throws WireException, InterruptedException {
    RaftClientReply reply =
        await(client.async().send(Message.valueOf(ByteString.copyFrom(entry))), "commit");
    try (DataInputStream in =
        new DataInputStream(
            new ByteArrayInputStream(reply.getMessage().getContent().toByteArray()))) {
      String error = in.readUTF();
      int osdId = in.readInt();
      long epoch = in.readLong();
      List<PgId> refused = PgHistoryMessages.pgIds(in.readAllBytes());
      Result result = new Result(error.isEmpty() ? null : error, osdId, epoch, refused);
      local.awaitApplied(reply.getLogIndex(), timeout);
      return result;
    } catch (IOException e) {
      throw new WireException(WireException.BAD_REQUEST, "unreadable state machine reply");
    }
  }

  /** The map as the leader has it now (a Ratis read-only request: linearizable). */
  ClusterMap readMap() throws WireException, InterruptedException {
    RaftClientReply reply = await(client.async().sendReadOnly(Message.EMPTY), "read");
    try {
      return MapCodec.decode(reply.getMessage().getContent().toByteArray());
    } catch (IOException e) {
      throw new WireException(WireException.BAD_REQUEST, e.getMessage());
    }
  }

  /**
   * The newest activation recorded for each of {@code pgs} (null for none), as the leader has them
   * now: linearizable, so an activation committed before this call is seen.
   */
  List<PgActivation> readActivations(List<PgId> pgs) throws WireException, InterruptedException {
    byte[] ids = PgHistoryMessages.pgIds(pgs);
    byte[] query = new byte[ids.length + 1];
    query[0] = MapStateMachine.QUERY_ACTIVATIONS;
    System.arraycopy(ids, 0, query, 1, ids.length);
    RaftClientReply reply =
        await(client.async().sendReadOnly(Message.valueOf(ByteString.copyFrom(query))), "read");
    try {
      return PgHistoryMessages.activations(reply.getMessage().getContent().toByteArray());
    } catch (IOException e) {
      throw new WireException(WireException.BAD_REQUEST, e.getMessage());
    }
  }

  private RaftClientReply await(
      java.util.concurrent.CompletableFuture<RaftClientReply> future, String what)
      throws WireException, InterruptedException {
    try {
      RaftClientReply reply = future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (!reply.isSuccess()) {
        throw new WireException(
            WireException.NO_QUORUM, "monitors could not " + what + ": " + reply.getException());
      }
      return reply;
    } catch (TimeoutException e) {
      future.cancel(true);
      throw new WireException(
          WireException.NO_QUORUM,
          "monitors could not " + what + " within " + timeout.toMillis() + " ms (no quorum?)");
    } catch (ExecutionException e) {
      throw new WireException(
          WireException.NO_QUORUM, "monitors could not " + what + ": " + e.getCause());
    }
  }

  @Override
  public void close() throws IOException {
    client.close();
  }
}
