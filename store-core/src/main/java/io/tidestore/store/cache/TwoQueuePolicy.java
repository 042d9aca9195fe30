package io.tidestore.store.cache;

/**
 * Full 2Q (T. Johnson, D. Shasha, "2Q: A Low Overhead High Performance Buffer Management
 * Replacement Algorithm", VLDB 1994, section 2.2), with weights in blocks.
 *
 * <ul>
 *   <li>A1in: FIFO of resident keys seen once recently, at most Kin = floor(kin x capacity) before
 *       it is reclaimed first.
 *   <li>A1out: FIFO of ghost keys (no data) evicted from A1in, at most Kout = floor(kout x
 *       capacity) blocks.
 *   <li>Am: LRU of resident keys that were re-referenced after leaving A1in.
 * </ul>
 *
 * On access to X: in Am, a hit, move X to Am's head; in A1in, a hit, no move; in A1out, a miss,
 * remove X from A1out, reclaim, insert X at Am's head; otherwise a miss, reclaim, insert X at
 * A1in's head. Reclaim does nothing while |A1in| + |Am| + weight(X) fits the capacity; else if
 * |A1in| > Kin or Am is empty it moves A1in's tail to A1out's head (dropping A1out's tail beyond
 * Kout), else it drops Am's tail. With weight 1 that is the paper's rule exactly.
 *
 * <p>Two extensions, both inert for the textbook replay: pinned keys are skipped when picking a
 * tail (the next-oldest unpinned key goes; if a queue has none, the other queue gives one), and,
 * when {@code sequentialContinuation} is on, SeaStore's pinboard rule: a ghost hit that starts
 * exactly where the previous access ended (key == previous key + its weight: the next block of a
 * sequential run) re-enters A1in instead of Am, so a repeated scan does not flush Am.
 *
 * <p><b>Threading:</b> owner thread only, see {@link ReplacementPolicy}.
 */
final class TwoQueuePolicy implements ReplacementPolicy {
  private static final byte A1IN = 1;
  private static final byte AM = 2;
  private static final byte A1OUT = 3;
  private static final long NO_LAST = -1;

  private final long capacity;
  private final long kin;
  private final long kout;
  private final boolean sequentialContinuation;
  private final EvictionHandler handler;
  private final PolicyNodes nodes;
  private final NodeQueue a1in;
  private final NodeQueue am;
  private final NodeQueue a1out;

  /** End key (start + weight) of the most recent access, for the continuation rule. */
  private long lastEnd = NO_LAST;

  private long continuations;

  public TwoQueuePolicy(
      long capacityBlocks,
      double kin,
      double kout,
      boolean sequentialContinuation,
      EvictionHandler handler) {
    this.capacity = PolicySizing.checkCapacity(capacityBlocks);
    if (!(kin >= 0.0 && kin <= 1.0) || !(kout >= 0.0 && kout <= 4.0)) {
      throw new IllegalArgumentException(
          "kin must be in [0,1], kout in [0,4]: " + kin + ", " + kout);
    }
    // The paper sizes Kin and Kout as fractions of the buffer; floor, as the issue fixes it.
    this.kin = (long) Math.floor(kin * capacityBlocks);
    this.kout = (long) Math.floor(kout * capacityBlocks);
    this.sequentialContinuation = sequentialContinuation;
    this.handler = handler;
    // Every resident key and every ghost weighs >= 1 block.
    this.nodes = new PolicyNodes((int) (capacityBlocks + this.kout + 1));
    this.a1in = new NodeQueue(nodes, A1IN);
    this.am = new NodeQueue(nodes, AM);
    this.a1out = new NodeQueue(nodes, A1OUT);
  }

  @Override
  public PolicyKind kind() {
    return PolicyKind.TWO_Q;
  }

  @Override
  public long capacityBlocks() {
    return capacity;
  }

  /** Kin in blocks: floor(kin x capacity). */
  public long kin() {
    return kin;
  }

  /** Kout in blocks: floor(kout x capacity). */
  public long kout() {
    return kout;
  }

  public boolean sequentialContinuation() {
    return sequentialContinuation;
  }

  /** Ghost hits that the continuation rule sent to A1in instead of Am. */
  public long continuations() {
    return continuations;
  }

  @Override
  public boolean isResident(long key) {
    int n = nodes.find(key);
    return n != PolicyNodes.NIL && nodes.queue[n] != A1OUT;
  }

  /** Whether {@code key} is a ghost in A1out (for tests and diagnostics). */
  public boolean isGhost(long key) {
    int n = nodes.find(key);
    return n != PolicyNodes.NIL && nodes.queue[n] == A1OUT;
  }

  /** Which queue holds {@code key}: "A1in", "Am", "A1out" or null (for tests and diagnostics). */
  public String queueOf(long key) {
    int n = nodes.find(key);
    if (n == PolicyNodes.NIL) {
      return null;
    }
    return switch (nodes.queue[n]) {
      case A1IN -> "A1in";
      case AM -> "Am";
      case A1OUT -> "A1out";
      default -> throw new IllegalStateException("node in no queue: " + key);
    };
  }

  @Override
  public boolean recordHit(long key) {
    int n = nodes.find(key);
    if (n == PolicyNodes.NIL) {
      return false;
    }
    byte q = nodes.queue[n];
    if (q == A1OUT) {
      return false;
    }
    if (q == AM) {
      am.moveToHead(n);
    }
    // In A1in: a hit, no move (correlated references stay in the FIFO).
    lastEnd = key + nodes.weight[n];
    return true;
  }

  @Override
  public boolean admit(long key, int weightBlocks) {
    PolicySizing.checkWeight(weightBlocks);
    int n = nodes.find(key);
    boolean ghost = false;
    if (n != PolicyNodes.NIL) {
      if (nodes.queue[n] != A1OUT) {
        throw new IllegalStateException("key already resident: " + key);
      }
      // In A1out: remove X from A1out (before reclaim, as the paper orders it).
      a1out.unlink(n);
      nodes.release(n);
      ghost = true;
    }
    boolean continuation = sequentialContinuation && key == lastEnd;
    lastEnd = key + weightBlocks;
    if (weightBlocks > capacity || !reclaimFor(weightBlocks)) {
      return false;
    }
    int node = nodes.allocate(key, weightBlocks);
    if (ghost && !continuation) {
      am.pushHead(node);
    } else {
      if (ghost) {
        continuations++;
      }
      a1in.pushHead(node);
    }
    return true;
  }

  private boolean reclaimFor(int weightBlocks) {
    while (a1in.weight + am.weight + weightBlocks > capacity) {
      if (!evictOne()) {
        return false;
      }
    }
    return true;
  }

  @Override
  public boolean evictOne() {
    if (a1in.weight > kin || am.isEmpty()) {
      return evictFromA1in() || evictFromAm();
    }
    return evictFromAm() || evictFromA1in();
  }

  /** A1in's oldest unpinned key leaves the resident set and is remembered at A1out's head. */
  private boolean evictFromA1in() {
    int n = oldestUnpinned(a1in);
    if (n == PolicyNodes.NIL) {
      return false;
    }
    long key = nodes.key[n];
    int w = nodes.weight[n];
    a1in.unlink(n);
    a1out.pushHead(n);
    while (a1out.weight > kout) {
      int t = a1out.tail;
      a1out.unlink(t);
      nodes.release(t);
    }
    handler.evicted(key, w);
    return true;
  }

  /** Am's least recently used unpinned key is dropped and not remembered. */
  private boolean evictFromAm() {
    int n = oldestUnpinned(am);
    if (n == PolicyNodes.NIL) {
      return false;
    }
    long key = nodes.key[n];
    int w = nodes.weight[n];
    am.unlink(n);
    nodes.release(n);
    handler.evicted(key, w);
    return true;
  }

  private int oldestUnpinned(NodeQueue q) {
    for (int n = q.tail; n != PolicyNodes.NIL; n = nodes.prev[n]) {
      if (!handler.isPinned(nodes.key[n])) {
        return n;
      }
    }
    return PolicyNodes.NIL;
  }

  @Override
  public boolean remove(long key) {
    int n = nodes.find(key);
    if (n == PolicyNodes.NIL || nodes.queue[n] == A1OUT) {
      return false;
    }
    (nodes.queue[n] == AM ? am : a1in).unlink(n);
    nodes.release(n);
    return true;
  }

  @Override
  public long residentBlocks() {
    return a1in.weight + am.weight;
  }

  @Override
  public int residentCount() {
    return a1in.count + am.count;
  }

  @Override
  public long a1inBlocks() {
    return a1in.weight;
  }

  @Override
  public long a1outBlocks() {
    return a1out.weight;
  }

  @Override
  public long amBlocks() {
    return am.weight;
  }

  @Override
  public void forEachResident(KeyWeightConsumer visitor) {
    for (int n = a1in.tail; n != PolicyNodes.NIL; n = nodes.prev[n]) {
      visitor.accept(nodes.key[n], nodes.weight[n]);
    }
    for (int n = am.tail; n != PolicyNodes.NIL; n = nodes.prev[n]) {
      visitor.accept(nodes.key[n], nodes.weight[n]);
    }
  }

  @Override
  public void adopt(long key, int weightBlocks) {
    PolicySizing.checkWeight(weightBlocks);
    if (a1in.weight + am.weight + weightBlocks > capacity) {
      throw new IllegalStateException("adopting " + key + " would exceed the capacity");
    }
    am.pushHead(nodes.allocate(key, weightBlocks));
  }

  @Override
  public String toString() {
    return "2q(capacity="
        + capacity
        + ", Kin="
        + kin
        + ", Kout="
        + kout
        + ", seq="
        + sequentialContinuation
        + ", A1in="
        + a1in.weight
        + ", Am="
        + am.weight
        + ", A1out="
        + a1out.weight
        + ")";
  }
}
