/**
 * The NBD gateway: the fixed newstyle handshake, request decoding and the transmission phase, each
 * command run on a {@link io.tidestore.osd.image.BlockImage} and its failure mapped to NBD's errno
 * in one place ({@code Nbd.errorFor}). It depends on {@code osd.image}, {@code osd.ops}, {@code
 * osd.net}, {@code osd.metrics} and {@code osd.reactor}; only the daemon depends on it.
 */
package io.tidestore.osd.nbd;
