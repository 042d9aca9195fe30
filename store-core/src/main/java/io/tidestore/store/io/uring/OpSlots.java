package io.tidestore.store.io.uring;

import io.tidestore.store.io.IoCompletion;
import io.tidestore.store.io.IoOpException;

/**
 * The operations an io_uring queue has in flight, one slot each: what the caller asked (op, file,
 * offset, length, completion, tag) and what the kernel answered (one result per CQE), in
 * preallocated parallel arrays indexed by slot, so an operation allocates nothing. The slot travels
 * to the kernel and back in the SQE's user_data ({@link UserData}).
 *
 * <p>Besides the free-slot stack it keeps two lists: the slots prepared since the SQ was last
 * published (close fails them: the kernel never saw them), and the slots whose every CQE arrived in
 * the last {@link #reap} (ready to deliver). Owner thread only.
 */
final class OpSlots implements CompletionQueue.Handler {
  private final IoCompletion[] completions;
  private final IoUringFile[] files;
  private final long[] tags;
  private final long[] offsets;
  private final int[] lengths;
  private final IoOpException.Op[] ops;

  /** CQEs still to come: 2 for a linked write + fdatasync, else 1. */
  private final int[] pendingCqes;

  private final int[] mainRes;
  private final int[] syncRes;
  private final int[] free;
  private int freeCount;
  private final int[] prepared;
  private int preparedCount;
  private final int[] ready;
  private int readyCount;

  OpSlots(int capacity) {
    this.completions = new IoCompletion[capacity];
    this.files = new IoUringFile[capacity];
    this.tags = new long[capacity];
    this.offsets = new long[capacity];
    this.lengths = new int[capacity];
    this.ops = new IoOpException.Op[capacity];
    this.pendingCqes = new int[capacity];
    this.mainRes = new int[capacity];
    this.syncRes = new int[capacity];
    this.free = new int[capacity];
    for (int i = 0; i < capacity; i++) {
      free[i] = capacity - 1 - i;
    }
    this.freeCount = capacity;
    this.prepared = new int[capacity];
    this.ready = new int[capacity];
  }

  /** Takes a free slot for an operation that will post {@code cqes} CQEs; the caller checked. */
  int take(
      IoOpException.Op op,
      IoUringFile file,
      long offset,
      int length,
      IoCompletion completion,
      long tag,
      int cqes) {
    int slot = free[--freeCount];
    completions[slot] = completion;
    files[slot] = file;
    tags[slot] = tag;
    offsets[slot] = offset;
    lengths[slot] = length;
    ops[slot] = op;
    pendingCqes[slot] = cqes;
    mainRes[slot] = 0;
    syncRes[slot] = 0;
    prepared[preparedCount++] = slot;
    return slot;
  }

  /** Frees a delivered (or cancelled) slot; returns the file it was on. */
  IoUringFile release(int slot) {
    IoUringFile file = files[slot];
    completions[slot] = null;
    files[slot] = null;
    free[freeCount++] = slot;
    return file;
  }

  /** Slots prepared since the SQ was last published. */
  int preparedCount() {
    return preparedCount;
  }

  int preparedSlot(int i) {
    return prepared[i];
  }

  /** The prepared slots were published (or discarded): they are the kernel's now. */
  void clearPrepared() {
    preparedCount = 0;
  }

  /**
   * Takes every ready CQE from {@code cq} and records it; returns how many CQEs were taken (of
   * finished operations or not). The finished ones are then {@link #readySlot}s.
   */
  int reap(CompletionQueue cq) {
    readyCount = 0;
    return cq.reap(this);
  }

  /** One CQE: records its result; the slot is ready once all its CQEs arrived. */
  @Override
  public void handle(long userData, int res, int flags) {
    int slot = UserData.slot(userData);
    if (UserData.part(userData) == UserData.PART_SYNC) {
      syncRes[slot] = res;
    } else {
      mainRes[slot] = res;
    }
    if (--pendingCqes[slot] == 0) {
      ready[readyCount++] = slot;
    }
  }

  /** Operations the last {@link #reap} finished. */
  int readyCount() {
    return readyCount;
  }

  int readySlot(int i) {
    return ready[i];
  }

  void clearReady() {
    readyCount = 0;
  }

  IoCompletion completion(int slot) {
    return completions[slot];
  }

  long tag(int slot) {
    return tags[slot];
  }

  IoOpException.Op op(int slot) {
    return ops[slot];
  }

  long offset(int slot) {
    return offsets[slot];
  }

  int length(int slot) {
    return lengths[slot];
  }

  /** The result of the operation's main SQE: bytes moved, or -errno. */
  int mainResult(int slot) {
    return mainRes[slot];
  }

  /**
   * The result of a linked write's fdatasync: 0, or -errno (-ECANCELED if the write fell short).
   */
  int syncResult(int slot) {
    return syncRes[slot];
  }
}
