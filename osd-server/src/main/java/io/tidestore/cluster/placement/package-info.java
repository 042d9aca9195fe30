/**
 * Placement (issue 17, stop 2): where an object lives, as a pure function of the cluster map.
 * Object name -> PG by a hash fixed forever ({@link io.tidestore.cluster.placement.ObjectHash})
 * folded with Ceph's {@code stable_mod}; PG -> ordered OSDs by straw2 over the {@code in} OSDs, one
 * replica per failure domain ({@link io.tidestore.cluster.placement.Placement}); the up set and
 * primary. Every OSD, monitor and client computes the same answer from the same map. Depends on
 * {@code cluster.map}, {@code store.api} (the object hash is defined there, once, since the store
 * lists a PG by it) and the JDK.
 */
package io.tidestore.cluster.placement;
