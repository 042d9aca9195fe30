package io.tidestore.osd.ops;

import io.netty.buffer.ByteBuf;

/**
 * One change to one object, as a client asks it of a primary and the primary sends it to the
 * replicas. The buffers in it belong to whoever holds the mutation, who {@link #release}s it.
 */
public sealed interface Mutation {
  /** Gives back the buffers (none for most kinds). */
  default void release() {}

  /** Whether the object no longer exists afterwards. */
  default boolean deletes() {
    return false;
  }

  /** Writes {@code data} at {@code offset}, extending the object. */
  record Write(long offset, ByteBuf data) implements Mutation {
    @Override
    public void release() {
      data.release();
    }
  }

  /** Sets the size. */
  record Truncate(long size) implements Mutation {}

  /** Frees whole 4 KiB blocks: they read as zeros and are holes. */
  record Punch(long offset, long length) implements Mutation {}

  /** Removes the object. */
  record Remove() implements Mutation {
    @Override
    public boolean deletes() {
      return true;
    }
  }

  /** Sets an attribute. */
  record SetXattr(String key, ByteBuf value) implements Mutation {
    @Override
    public void release() {
      value.release();
    }
  }

  /** Removes an attribute. */
  record RemoveXattr(String key) implements Mutation {}
}
