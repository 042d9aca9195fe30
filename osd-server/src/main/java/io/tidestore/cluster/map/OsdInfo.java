package io.tidestore.cluster.map;

import java.util.UUID;

/**
 * One OSD as the map records it.
 *
 * @param id the OSD's number, allocated once by the monitors (or named by {@code --id})
 * @param uuid the OSD's own identity, generated in its data directory: a boot with a known uuid
 *     gets the same id back, so an id is never allocated twice for one OSD
 * @param host the host label (failure domain {@code host})
 * @param weight the share of data it should hold relative to the others (its capacity, as CRUSH
 *     weights are); placement's straw2 draws divide by it
 * @param address the object protocol's host:port, as the OSD bound it
 * @param adminAddress the metrics/admin HTTP host:port
 * @param up whether it is running (heartbeating) as far as the monitors know
 * @param in whether it is meant to hold data (out: placement skips it, so its PGs are remapped)
 * @param upFrom the epoch at which it was last marked up (peering uses it later)
 * @param stateSinceMillis wall-clock time, as the leader proposing the change read it, of the last
 *     up/down change: the down-out timer counts from it, so a new leader continues the count
 */
public record OsdInfo(
    int id,
    UUID uuid,
    String host,
    double weight,
    String address,
    String adminAddress,
    boolean up,
    boolean in,
    long upFrom,
    long stateSinceMillis) {

  /** The Ceph name of this OSD: {@code osd.N}. */
  public String name() {
    return "osd." + id;
  }

  OsdInfo markedDown(long nowMillis) {
    return new OsdInfo(id, uuid, host, weight, address, adminAddress, false, in, upFrom, nowMillis);
  }

  OsdInfo markedOut() {
    return new OsdInfo(
        id, uuid, host, weight, address, adminAddress, up, false, upFrom, stateSinceMillis);
  }
}
