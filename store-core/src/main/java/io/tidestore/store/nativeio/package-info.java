/**
 * The few libc calls Tidestore makes through java.lang.foreign ({@link
 * io.tidestore.store.nativeio.Libc}: open, close, flock, gettid, getpid, strerror, and generic
 * downcalls with errno captured by the linker), failing as {@link
 * io.tidestore.store.nativeio.NativeException}. Empty where native access is denied, so callers
 * keep a pure-JDK fallback.
 *
 * <p>May depend on: the JDK only.
 */
package io.tidestore.store.nativeio;
