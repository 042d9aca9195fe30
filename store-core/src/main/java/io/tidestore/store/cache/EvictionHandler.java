package io.tidestore.store.cache;

/**
 * What a {@link ReplacementPolicy} asks its owner while reclaiming: may this key go, and the news
 * that it went. The extent cache answers with its pin counts and frees the extent's memory; the
 * trace simulator uses {@link #NONE}.
 *
 * <p>Called synchronously on the policy's owner thread from inside {@link ReplacementPolicy#admit}
 * and {@link ReplacementPolicy#evictOne}; an implementation must not call back into the policy.
 */
public interface EvictionHandler {
  /** Nothing is pinned and evictions need no clean-up (the trace simulator). */
  EvictionHandler NONE =
      new EvictionHandler() {
        @Override
        public boolean isPinned(long key) {
          return false;
        }

        @Override
        public void evicted(long key, int weightBlocks) {}
      };

  /** Whether {@code key} is pinned (a reply is still sending it): pinned keys are never evicted. */
  boolean isPinned(long key);

  /** {@code key} left the resident set by the policy's choice (not by {@code remove}). */
  void evicted(long key, int weightBlocks);
}
