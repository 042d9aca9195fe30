/**
 * Connection handling shared by the gateways: the inbound byte budget and read gate, backpressure
 * on requests in flight, reply flushing, listener setup and the close-after-error log lines. It
 * depends only on {@code osd.reactor}; {@code osd.protocol}, {@code osd.nbd} and the metrics depend
 * on it.
 */
package io.tidestore.osd.net;
