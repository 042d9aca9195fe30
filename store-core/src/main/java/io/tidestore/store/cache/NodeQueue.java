package io.tidestore.store.cache;

/**
 * An intrusive doubly linked queue of node indices over a {@link PolicyNodes} pool: head is the
 * most recently inserted (MRU), tail the oldest (LRU / FIFO end). Keeps the total weight in blocks
 * so the 2Q size tests (|A1in|, |Am|, |A1out|) are O(1). Owner-thread only.
 */
final class NodeQueue {
  final byte id;
  private final PolicyNodes nodes;
  int head = PolicyNodes.NIL;
  int tail = PolicyNodes.NIL;
  long weight;
  int count;

  NodeQueue(PolicyNodes nodes, byte id) {
    this.nodes = nodes;
    this.id = id;
  }

  boolean isEmpty() {
    return count == 0;
  }

  void pushHead(int n) {
    nodes.prev[n] = PolicyNodes.NIL;
    nodes.next[n] = head;
    if (head != PolicyNodes.NIL) {
      nodes.prev[head] = n;
    } else {
      tail = n;
    }
    head = n;
    nodes.queue[n] = id;
    weight += nodes.weight[n];
    count++;
  }

  void unlink(int n) {
    int p = nodes.prev[n];
    int x = nodes.next[n];
    if (p != PolicyNodes.NIL) {
      nodes.next[p] = x;
    } else {
      head = x;
    }
    if (x != PolicyNodes.NIL) {
      nodes.prev[x] = p;
    } else {
      tail = p;
    }
    nodes.prev[n] = PolicyNodes.NIL;
    nodes.next[n] = PolicyNodes.NIL;
    nodes.queue[n] = PolicyNodes.NO_QUEUE;
    weight -= nodes.weight[n];
    count--;
  }

  void moveToHead(int n) {
    if (head != n) {
      unlink(n);
      pushHead(n);
    }
  }

  void clear() {
    head = PolicyNodes.NIL;
    tail = PolicyNodes.NIL;
    weight = 0;
    count = 0;
  }
}
