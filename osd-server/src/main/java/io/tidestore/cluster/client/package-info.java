/**
 * The monitors' client, used by OSDs, the CLI and (later) gateways: requests with failover between
 * monitors, heartbeats to every monitor, a map subscription that survives the loss of its monitor
 * ({@link io.tidestore.cluster.client.MonClient}), monitor address lists, and the cluster status
 * that {@code tidestore status} prints ({@link io.tidestore.cluster.client.ClusterStatus}). Depends
 * on {@code cluster.wire}, {@code cluster.map}, {@code cluster.placement} (PG states in the
 * status), Jackson and the JDK.
 */
package io.tidestore.cluster.client;
