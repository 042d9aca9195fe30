/**
 * TLS on the cluster's monitor links: a {@link io.tidestore.cluster.wire.LinkSecurity} of JDK TLS
 * 1.3 sockets ({@link io.tidestore.cluster.tls.TlsLinks}) built from the same certificate files and
 * contexts as the OSD's listeners. Depends on {@code cluster.wire} and {@code osd.security} (and
 * the JDK); {@code mon}, {@code cli} and (through its settings) {@code osd.cluster} use it. Kept
 * out of both so that {@code cluster.wire} stays free of TLS and {@code osd.security} of the
 * cluster.
 */
package io.tidestore.cluster.tls;
