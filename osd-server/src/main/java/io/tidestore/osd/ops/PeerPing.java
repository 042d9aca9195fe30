package io.tidestore.osd.ops;

/**
 * An OSD's heartbeat to a peer it shares PGs with (protocol v2 OSD_PING, Ceph's MOSDPing PING).
 *
 * @param epoch the sender's map epoch
 * @param from the sending OSD
 * @param fromUpFrom its incarnation
 * @param target the OSD the sender means to reach at that address
 * @param stamp the sender's clock when it sent the ping, echoed in the reply
 */
public record PeerPing(long epoch, int from, long fromUpFrom, int target, long stamp) {
  public PeerPing {
    if (from < 0 || target < 0 || fromUpFrom < 0) {
      throw new IllegalArgumentException("negative OSD id or incarnation");
    }
  }

  /**
   * The reply (Ceph's PING_REPLY): who answered, in which incarnation, to the ping of {@code
   * stamp}.
   *
   * @param osd the answering OSD (a peer whose address now belongs to another OSD names that one)
   * @param upFrom its incarnation as its map has it
   * @param stamp the ping's stamp
   */
  public record Reply(int osd, long upFrom, long stamp) {
    public Reply {
      if (osd < 0 || upFrom < 0) {
        throw new IllegalArgumentException("negative OSD id or incarnation");
      }
    }
  }
}
