package io.tidestore.store.cache;

/**
 * Least recently used: one list; a hit moves the key to the head, admission reclaims from the tail
 * (skipping pinned keys) until the new key fits.
 *
 * <p><b>Threading:</b> owner thread only, see {@link ReplacementPolicy}.
 */
final class LruPolicy implements ReplacementPolicy {
  private static final byte LIST = 1;

  private final long capacity;
  private final EvictionHandler handler;
  private final PolicyNodes nodes;
  private final NodeQueue list;

  public LruPolicy(long capacityBlocks, EvictionHandler handler) {
    this.capacity = PolicySizing.checkCapacity(capacityBlocks);
    this.handler = handler;
    this.nodes = new PolicyNodes((int) capacityBlocks);
    this.list = new NodeQueue(nodes, LIST);
  }

  @Override
  public PolicyKind kind() {
    return PolicyKind.LRU;
  }

  @Override
  public long capacityBlocks() {
    return capacity;
  }

  @Override
  public boolean isResident(long key) {
    return nodes.find(key) != PolicyNodes.NIL;
  }

  @Override
  public boolean recordHit(long key) {
    int n = nodes.find(key);
    if (n == PolicyNodes.NIL) {
      return false;
    }
    list.moveToHead(n);
    return true;
  }

  @Override
  public boolean admit(long key, int weightBlocks) {
    PolicySizing.checkWeight(weightBlocks);
    if (nodes.find(key) != PolicyNodes.NIL) {
      throw new IllegalStateException("key already resident: " + key);
    }
    if (weightBlocks > capacity) {
      return false;
    }
    while (list.weight + weightBlocks > capacity) {
      if (!evictOne()) {
        return false;
      }
    }
    list.pushHead(nodes.allocate(key, weightBlocks));
    return true;
  }

  @Override
  public boolean evictOne() {
    for (int n = list.tail; n != PolicyNodes.NIL; n = nodes.prev[n]) {
      long key = nodes.key[n];
      if (!handler.isPinned(key)) {
        int w = nodes.weight[n];
        list.unlink(n);
        nodes.release(n);
        handler.evicted(key, w);
        return true;
      }
    }
    return false;
  }

  @Override
  public boolean remove(long key) {
    int n = nodes.find(key);
    if (n == PolicyNodes.NIL) {
      return false;
    }
    list.unlink(n);
    nodes.release(n);
    return true;
  }

  @Override
  public long residentBlocks() {
    return list.weight;
  }

  @Override
  public int residentCount() {
    return list.count;
  }

  @Override
  public long a1inBlocks() {
    return 0;
  }

  @Override
  public long a1outBlocks() {
    return 0;
  }

  @Override
  public long amBlocks() {
    return list.weight;
  }

  @Override
  public void forEachResident(KeyWeightConsumer visitor) {
    for (int n = list.tail; n != PolicyNodes.NIL; n = nodes.prev[n]) {
      visitor.accept(nodes.key[n], nodes.weight[n]);
    }
  }

  @Override
  public void adopt(long key, int weightBlocks) {
    PolicySizing.checkWeight(weightBlocks);
    if (list.weight + weightBlocks > capacity) {
      throw new IllegalStateException("adopting " + key + " would exceed the capacity");
    }
    list.pushHead(nodes.allocate(key, weightBlocks));
  }

  @Override
  public String toString() {
    return "lru(capacity=" + capacity + " blocks, resident=" + list.weight + ")";
  }
}
