package io.tidestore.cluster.thrash;

import io.netty.buffer.Unpooled;
import io.tidestore.client.ClusterClient;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/**
 * The thrasher's objects (and the cluster tests' writers'): each version of each object has content
 * that says which it is (a header with the object's number and the version, then bytes derived from
 * both), so a read can be checked against the versions that may be there.
 */
public final class VerifiedObjects {
  public static final int SIZE = 8192;

  private VerifiedObjects() {}

  public static String name(int object) {
    return "thrash-" + object;
  }

  public static byte[] content(int object, long version) {
    byte[] b = new byte[SIZE];
    new Random(object * 1_000_003L + version).nextBytes(b);
    ByteBuffer.wrap(b).putInt(object).putLong(version);
    return b;
  }

  /** Writes version {@code version} of {@code object} into {@code pool}; done once acknowledged. */
  public static CompletableFuture<Void> write(
      ClusterClient client, String pool, int object, long version) {
    return client.write(pool, name(object), 0, Unpooled.wrappedBuffer(content(object, version)));
  }

  /** The version {@code bytes} hold if they are exactly one version of {@code object}, else -1. */
  public static long versionOf(int object, byte[] bytes) {
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
