/**
 * A whole cluster of local processes ({@code tidestore cluster up|down}, Ceph's vstart.sh): free
 * loopback ports, one process per daemon, small defaults that fit two cores, and the {@code
 * cluster.json} that {@code down} and {@code status --dir} read. Depends on {@code cluster.client}
 * and {@code cluster.pgstats} (it waits for the PGs to peer), {@code cluster.tls} and {@code
 * osd.security} ({@code cluster up --tls}: {@code tls init} and the links), {@code launch} and the
 * JDK; it starts daemons as processes, never in its own JVM.
 */
package io.tidestore.cluster.local;
