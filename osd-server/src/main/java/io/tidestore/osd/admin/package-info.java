/**
 * The daemon's HTTP endpoint (metrics, status, runtime cache policy) on Netty's HTTP codec, on a
 * thread of its own, behind the listeners' TLS and grants. It takes what it serves as functions
 * from the daemon and depends only on {@code osd.security}.
 */
package io.tidestore.osd.admin;
