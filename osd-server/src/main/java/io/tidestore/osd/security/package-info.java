/**
 * TLS and who may do what: certificate files in nbdkit's and libnbd's layouts, Netty TLS 1.3
 * contexts (the JDK's provider or BoringSSL), the TLS handlers every listener puts first ({@link
 * io.tidestore.osd.security.ServerSecurity#protect}, failed handshakes counted and logged in one
 * line), the peer's identity (its certificate's CN), the {@code --auth-file} grants (cephx caps in
 * spirit: r, rw, *, narrowed to an image or a pool) and the counters of what they refused, the rule
 * that only loopback may be served without client certificates, and the certificate authority
 * behind {@code tidestore tls init} (Bouncy Castle).
 *
 * <p>Depends on Netty's TLS handler, Bouncy Castle and {@code osd.config}'s line reading (the auth
 * file) only; the gateways ({@code osd.nbd}, {@code osd.protocol}, {@code osd.admin}), the metrics
 * and the clients use it.
 */
package io.tidestore.osd.security;
