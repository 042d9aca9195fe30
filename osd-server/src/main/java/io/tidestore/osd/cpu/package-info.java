/**
 * CPU topology and thread pinning: which CPUs the reactors and workers run on, read from sysfs and
 * applied through the store's native calls. It depends only on {@code store.nativeio}.
 */
package io.tidestore.osd.cpu;
