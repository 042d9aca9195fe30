package io.tidestore.cluster.thrash;

import java.nio.ByteBuffer;
import java.util.Random;

/**
 * The thrasher's objects: each version of each object has content that says which it is (a header
 * with the object's number and the version, then bytes derived from both), so a read can be checked
 * against the versions that may be there.
 */
final class VerifiedObjects {
  static final int SIZE = 8192;

  private VerifiedObjects() {}

  static String name(int object) {
    return "thrash-" + object;
  }

  static byte[] content(int object, long version) {
    byte[] b = new byte[SIZE];
    new Random(object * 1_000_003L + version).nextBytes(b);
    ByteBuffer.wrap(b).putInt(object).putLong(version);
    return b;
  }

  /** The version {@code bytes} hold if they are exactly one version of {@code object}, else -1. */
  static long versionOf(int object, byte[] bytes) {
    if (bytes.length != SIZE) {
      return -1;
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    if (b.getInt() != object) {
      return -1;
    }
    long version = b.getLong();
    return java.util.Arrays.equals(bytes, content(object, version)) ? version : -1;
  }
}
