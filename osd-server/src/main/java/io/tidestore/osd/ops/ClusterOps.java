package io.tidestore.osd.ops;

import io.netty.buffer.ByteBuf;
import io.tidestore.cluster.pg.PgPeerInfo;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.store.api.Allocation;
import java.util.concurrent.CompletionStage;

/**
 * What a cluster OSD serves over object protocol v2: clients' ops, which it takes as the primary of
 * the object's PG, and the replication and peering requests of the other OSDs. Failures are {@link
 * ObjectOpsException}s, with {@code STALE_MAP} when the sender's map is older than this OSD's and
 * {@code TRY_AGAIN} when the PG cannot take the op now. Callable from any thread; stages complete
 * on any thread. Buffers passed in belong to the callee.
 */
public interface ClusterOps {
  /** This OSD's map epoch, which every v2 reply carries. */
  long epoch();

  /** The name of pool {@code pool} in this OSD's map (for the client's caps), or null. */
  String poolName(int pool);

  /** Applies a client's change on every member of the PG's acting set; completes once durable. */
  CompletionStage<Void> mutate(ClientRequest request, Mutation mutation);

  CompletionStage<ByteBuf> read(ClientRequest request, long offset, int length);

  CompletionStage<ObjectInfo> stat(ClientRequest request);

  CompletionStage<ByteBuf> getXattr(ClientRequest request, String key);

  /** Which bytes of a range of the object hold data, as its primary's store has them. */
  CompletionStage<Allocation> allocation(ClientRequest request, long offset, long length);

  /** Applies a primary's op as a replica; completes once durable. */
  CompletionStage<Void> replicate(RepOp op);

  /** This OSD's copy of {@code pg}: what the primary peers with. */
  CompletionStage<PgPeerInfo> pgQuery(long epoch, PgId pg);

  /**
   * The primary activates {@code pg} in {@code epoch} with this OSD in its write set: keeps it as
   * the copy's last activation; completes once durable.
   */
  CompletionStage<Void> activate(long epoch, PgId pg);

  /**
   * OSD {@code osd}, outside {@code pg}'s acting set, asks whether its copy may go: completes when
   * this OSD is the PG's primary and the PG is active+clean without it (and its last activation
   * does not name it), else fails with TRY_AGAIN.
   */
  CompletionStage<Void> strayQuery(long epoch, PgId pg, int osd);

  // Recovery: a primary brings a member's copy of a PG up to date, or its own from a member.

  /** This OSD's log of {@code pg}. */
  CompletionStage<LogCopy> getLog(long epoch, PgId pg);

  /** Takes a piece of an object of {@code pg} (releases it); completes once durable. */
  CompletionStage<Void> push(long epoch, PgId pg, ObjectChunk chunk);

  /** A piece of an object of {@code pg} as this OSD holds it, at most {@code max} bytes. */
  CompletionStage<ObjectChunk> pull(long epoch, PgId pg, String name, long offset, int max);

  /** Makes this OSD's log of {@code pg} the primary's; completes once durable. */
  CompletionStage<Void> logSync(long epoch, PgId pg, LogSync sync);

  /** Names of {@code pg}'s objects on this OSD after {@code after}, at most {@code max}. */
  CompletionStage<NamePage> listPg(long epoch, PgId pg, String after, int max);

  // Deep scrub: the primary compares every member's copy of each object, block by block.

  /** This OSD's copy of object {@code name} of {@code pg}, as one crc32c per 4 KiB block. */
  CompletionStage<ObjectDigest> blockCrcs(long epoch, PgId pg, String name);

  /**
   * Deep-scrubs {@code pg} now, as its primary (joining a scrub of it already under way), repairing
   * what it can; completes with what it found. TRY_AGAIN while the PG is not active.
   */
  CompletionStage<ScrubReport> deepScrub(long epoch, PgId pg);
}
