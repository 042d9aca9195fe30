/**
 * Measurements of the whole store through its API (mount time, index bytes per extent, the cleaner
 * at 90% full), as programs run on demand rather than tests.
 *
 * <p>Depends on store-core's {@code api}, {@code engine} and {@code io}.
 */
package io.tidestore.bench.store;
