package io.tidestore.store.cache;

/**
 * The node pool behind a policy's queues: parallel primitive arrays indexed by node, a free list
 * threaded through {@code next}, and a key-to-node map. Sized once at construction for the most
 * nodes the policy can hold (every resident entry weighs at least one block, plus 2Q's ghosts), so
 * the hot path never allocates. Owner-thread only.
 */
final class PolicyNodes {
  static final int NIL = -1;
  static final byte NO_QUEUE = 0;

  final long[] key;
  final int[] weight;
  final int[] prev;
  final int[] next;
  final byte[] queue;
  final LongIntHashMap index;
  private int freeHead;
  private int used;

  PolicyNodes(int maxNodes) {
    key = new long[maxNodes];
    weight = new int[maxNodes];
    prev = new int[maxNodes];
    next = new int[maxNodes];
    queue = new byte[maxNodes];
    index = new LongIntHashMap(maxNodes);
    reset();
  }

  int capacity() {
    return key.length;
  }

  int used() {
    return used;
  }

  /** Node of {@code k}, or {@link #NIL}. */
  int find(long k) {
    return index.get(k);
  }

  /** Takes a node for {@code k} (which must be absent) and indexes it. */
  int allocate(long k, int w) {
    int n = freeHead;
    if (n == NIL) {
      throw new IllegalStateException("policy node pool exhausted: " + key.length + " nodes");
    }
    freeHead = next[n];
    key[n] = k;
    weight[n] = w;
    prev[n] = NIL;
    next[n] = NIL;
    queue[n] = NO_QUEUE;
    index.put(k, n);
    used++;
    return n;
  }

  /** Returns an unlinked node to the pool and drops its key from the index. */
  void release(int n) {
    index.remove(key[n]);
    queue[n] = NO_QUEUE;
    next[n] = freeHead;
    freeHead = n;
    used--;
  }

  void reset() {
    index.clear();
    for (int i = 0; i < key.length; i++) {
      next[i] = i + 1 < key.length ? i + 1 : NIL;
      queue[i] = NO_QUEUE;
    }
    freeHead = key.length > 0 ? 0 : NIL;
    used = 0;
  }
}
