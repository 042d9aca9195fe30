/**
 * The native load generator: workers that drive an OSD's images through the object protocol client
 * and report fio-like JSON. It depends on {@code bench.job}, the client, {@code osd.protocol}
 * (statuses) and {@code osd.image} (image layout); the daemon never depends on it.
 */
package io.tidestore.bench.load;
