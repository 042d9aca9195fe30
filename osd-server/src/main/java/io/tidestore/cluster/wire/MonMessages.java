package io.tidestore.cluster.wire;

import io.tidestore.cluster.map.CommandCodec;
import io.tidestore.cluster.map.MapCommand;
import io.tidestore.cluster.pgstats.PgReport;
import io.tidestore.cluster.pgstats.PgStatsCodec;
import io.tidestore.cluster.pgstats.PgSummary;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The payloads of the monitor protocol's messages. Commands that become map changes (boot, pool
 * create, pool rm) travel in the map's own command encoding ({@link CommandCodec}); the rest are a
 * few big-endian fields, strings as {@link DataOutputStream#writeUTF}.
 */
public final class MonMessages {
  private MonMessages() {}

  /** A BOOT request: the cluster the OSD belongs to (zero UUID if none yet) and its boot. */
  public record Boot(UUID fsid, MapCommand.Boot boot) {}

  /** The BOOT reply: the OSD's id, the cluster's fsid, and the epoch that marked it up. */
  public record BootReply(int osdId, UUID fsid, long upFrom) {}

  /**
   * A HEARTBEAT: this OSD, this incarnation of it, and its report of the PGs it is primary of
   * ({@link PgReport#NONE} when a heartbeat carries none: an OSD before PG reports).
   */
  public record Heartbeat(int osdId, long upFrom, PgReport pgs) {}

  /** A monitor's peer as {@code --peers} names it. */
  public record Peer(String id, String address) {}

  /**
   * A MON_STATUS reply.
   *
   * @param id this monitor's id
   * @param role leader, follower, candidate (Raft's)
   * @param leaderId the leader it knows, or ""
   * @param term the Raft term
   * @param epoch the map epoch it has applied
   * @param peers every monitor of the group
   * @param quorum the monitors the leader heard from recently (only a leader fills it)
   */
  public record MonStatus(
      String id,
      String role,
      String leaderId,
      long term,
      long epoch,
      List<Peer> peers,
      List<String> quorum) {}

  public static byte[] boot(Boot boot) {
    return write(
        out -> {
          out.writeLong(boot.fsid().getMostSignificantBits());
          out.writeLong(boot.fsid().getLeastSignificantBits());
          out.write(CommandCodec.encode(boot.boot()));
        });
  }

  public static Boot boot(byte[] payload) throws IOException {
    DataInputStream in = reader(payload);
    UUID fsid = new UUID(in.readLong(), in.readLong());
    MapCommand command = CommandCodec.decode(in.readAllBytes());
    if (!(command instanceof MapCommand.Boot boot)) {
      throw new WireException(WireException.BAD_REQUEST, "BOOT carries no boot command");
    }
    return new Boot(fsid, boot);
  }

  public static byte[] bootReply(BootReply reply) {
    return write(
        out -> {
          out.writeInt(reply.osdId());
          out.writeLong(reply.fsid().getMostSignificantBits());
          out.writeLong(reply.fsid().getLeastSignificantBits());
          out.writeLong(reply.upFrom());
        });
  }

  public static BootReply bootReply(byte[] payload) throws IOException {
    DataInputStream in = reader(payload);
    return new BootReply(in.readInt(), new UUID(in.readLong(), in.readLong()), in.readLong());
  }

  public static byte[] heartbeat(Heartbeat heartbeat) {
    return write(
        out -> {
          out.writeInt(heartbeat.osdId());
          out.writeLong(heartbeat.upFrom());
          PgStatsCodec.writeReport(out, heartbeat.pgs());
        });
  }

  public static Heartbeat heartbeat(byte[] payload) throws IOException {
    DataInputStream in = reader(payload);
    int osd = in.readInt();
    long upFrom = in.readLong();
    // The report follows the fields every heartbeat had; one without it reports nothing.
    PgReport pgs = in.available() > 0 ? PgStatsCodec.readReport(in) : PgReport.NONE;
    return new Heartbeat(osd, upFrom, pgs);
  }

  /** A PG_STATS reply. */
  public static byte[] pgSummary(PgSummary summary) {
    return write(out -> PgStatsCodec.writeSummary(out, summary));
  }

  public static PgSummary pgSummary(byte[] payload) throws IOException {
    return PgStatsCodec.readSummary(reader(payload));
  }

  /** GET_MAP and SUBSCRIBE: the epoch the sender already has. */
  public static byte[] epoch(long epoch) {
    return write(out -> out.writeLong(epoch));
  }

  public static long epoch(byte[] payload) throws IOException {
    return reader(payload).readLong();
  }

  /** POOL_CREATE and POOL_REMOVE carry the map command itself. */
  public static byte[] command(MapCommand command) {
    return CommandCodec.encode(command);
  }

  public static byte[] error(int code, String message) {
    return write(
        out -> {
          out.writeShort(code);
          out.writeUTF(message.length() > 8000 ? message.substring(0, 8000) : message);
        });
  }

  /** The {@link WireException} an ERROR frame stands for. */
  public static WireException error(MonFrame frame) {
    try {
      DataInputStream in = reader(frame.payload());
      int code = in.readUnsignedShort();
      return new WireException(code, in.readUTF(), frame.requestId());
    } catch (IOException e) {
      return new WireException(WireException.BAD_REQUEST, "unreadable error reply");
    }
  }

  public static byte[] monStatus(MonStatus status) {
    return write(
        out -> {
          out.writeUTF(status.id());
          out.writeUTF(status.role());
          out.writeUTF(status.leaderId());
          out.writeLong(status.term());
          out.writeLong(status.epoch());
          out.writeShort(status.peers().size());
          for (Peer peer : status.peers()) {
            out.writeUTF(peer.id());
            out.writeUTF(peer.address());
          }
          out.writeShort(status.quorum().size());
          for (String id : status.quorum()) {
            out.writeUTF(id);
          }
        });
  }

  public static MonStatus monStatus(byte[] payload) throws IOException {
    DataInputStream in = reader(payload);
    String id = in.readUTF();
    String role = in.readUTF();
    String leader = in.readUTF();
    long term = in.readLong();
    long epoch = in.readLong();
    List<Peer> peers = new ArrayList<>();
    for (int n = in.readUnsignedShort(); n > 0; n--) {
      peers.add(new Peer(in.readUTF(), in.readUTF()));
    }
    List<String> quorum = new ArrayList<>();
    for (int n = in.readUnsignedShort(); n > 0; n--) {
      quorum.add(in.readUTF());
    }
    return new MonStatus(id, role, leader, term, epoch, peers, quorum);
  }

  /** What a payload writes; {@link #write} runs it into a byte array. */
  interface Body {
    void write(DataOutputStream out) throws IOException;
  }

  static byte[] write(Body body) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      body.write(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    return bytes.toByteArray();
  }

  static DataInputStream reader(byte[] payload) {
    return new DataInputStream(new ByteArrayInputStream(payload));
  }
}
