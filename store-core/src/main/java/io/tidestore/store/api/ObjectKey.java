package io.tidestore.store.api;

import java.nio.charset.StandardCharsets;
import java.util.Comparator;

/**
 * An object's name: a pool id and a name of up to {@link #MAX_NAME_BYTES} bytes of UTF-8. Keys
 * order by pool, then by name (the order {@link ShardStore#list} pages in). Immutable.
 */
public record ObjectKey(long pool, String name) implements Comparable<ObjectKey> {
  /** Longest name, in UTF-8 bytes. */
  public static final int MAX_NAME_BYTES = 1024;

  private static final Comparator<ObjectKey> ORDER =
      Comparator.comparingLong(ObjectKey::pool).thenComparing(ObjectKey::name);

  /**
   * @throws IllegalArgumentException when the name is empty, too long, or the pool is negative
   */
  public ObjectKey {
    if (pool < 0) {
      throw new IllegalArgumentException("pool must be >= 0, got " + pool);
    }
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("object name must not be empty");
    }
    int bytes = name.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_NAME_BYTES) {
      throw new IllegalArgumentException(
          "object name is " + bytes + " bytes of UTF-8, the limit is " + MAX_NAME_BYTES);
    }
  }

  /** The name as UTF-8, as stored in records and checkpoints. */
  public byte[] nameBytes() {
    return name.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The cluster's hash of this object ({@link PlacementHash#of} of the name): which PG of its pool
   * holds it, and its place in {@link ShardStore#listHashRange}'s order. Computed on each call.
   */
  public int placementHash() {
    return PlacementHash.of(name);
  }

  // equals and hashCode by hand, though a record has them: the generated ones go through
  // invokedynamic method-handle trees whose compiled code is large enough that C2 stops inlining
  // the index lookup (LogShard.existing) into the read path ("already compiled into a big method").

  @Override
  public boolean equals(Object o) {
    return this == o || (o instanceof ObjectKey k && pool == k.pool && name.equals(k.name));
  }

  @Override
  public int hashCode() {
    return 31 * Long.hashCode(pool) + name.hashCode();
  }

  @Override
  public int compareTo(ObjectKey other) {
    return ORDER.compare(this, other);
  }
}
