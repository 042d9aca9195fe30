package io.tidestore.store.cache;

import io.tidestore.store.memory.MemoryBudget;
import io.tidestore.store.memory.MemoryUse;
import io.tidestore.store.owner.Owner;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

/**
 * One store shard's off-heap extent cache: extents of 1..1024 blocks (4 KiB..4 MiB) keyed by
 * logical (object id, block), held in native memory under a byte capacity reserved from the
 * daemon's {@link MemoryBudget}, kept or evicted by a switchable {@link ReplacementPolicy}.
 *
 * <h2>Life of an extent</h2>
 *
 * <ol>
 *   <li>{@link #lookup} of any block the extent covers returns a handle on a hit, {@link #MISS}
 *       otherwise. A handle stays valid on the owner thread until the cache is next changed, or
 *       until {@link #unpin} if it was {@link #pin}ned.
 *   <li>On a miss (or a durable write) the store calls {@link #allocate}: a 4 KiB-aligned buffer
 *       from the cache's slabs, invisible to lookups. It is the O_DIRECT read target (the slabs are
 *       {@link #regions()} registered with the shard's {@code IoQueue}) or the copy of written
 *       data: no second copy.
 *   <li>{@link #publish} makes it visible (replacing any older overlapping extents) and admits it
 *       to the policy; {@link #abandon} gives the buffer back if the I/O failed. If the range was
 *       invalidated while the buffer was filling, publish refuses: the bytes may be stale.
 *   <li>{@link #pin} while a reply still sends the bytes (zero-copy); pinned extents are never
 *       evicted, and an invalidated pinned extent is freed at its last {@link #unpin}.
 *   <li>Overwrite, truncate and remove call {@link #invalidate} / {@link #invalidateObject}.
 * </ol>
 *
 * <h2>Threading</h2>
 *
 * A cache belongs to one shard and every method is called on the shard's owner thread, except
 * {@link #requestPolicy} (any thread: it hands the new policy to the owner thread, which applies it
 * at its next cache call or at an explicit {@link #applyPendingPolicy()}), {@link #stats()}'s
 * getters (racy gauges for the metrics thread) and {@link #close()} (once the owner has stopped
 * using the cache). The owner is the first thread to call a data-path method; calls from any other
 * thread throw {@link WrongThreadException}. The hot path (lookup hit, pin, unpin) allocates
 * nothing.
 *
 * <h2>Pieces</h2>
 *
 * This class keeps the rules above; the state lives in package-private parts: {@link ExtentMemory}
 * (the one arena and its buddy allocator), {@link ExtentSlots} (per-extent state, handles, fills in
 * progress), {@link ExtentIndex} (block to extent), the {@link ReplacementPolicy}, {@link
 * PolicyRequests} (switches waiting for the owner) and {@link CacheStats} (the counters).
 */
public final class ExtentCache implements AutoCloseable {
  /** {@link #lookup} found nothing. */
  public static final long MISS = -1;

  /** {@link #allocate} found no room: every resident extent is pinned or the extent is too big. */
  public static final long NO_SPACE = -2;

  private final String name;
  private final long capacityBytes;
  private final MemoryBudget.Reservation reservation;
  private final ExtentMemory memory;
  private final ExtentSlots slots;
  private final ExtentIndex index;
  private final PolicyRequests policyRequests = new PolicyRequests();
  private final Handler handler = new Handler();
  private final CacheStats stats;
  private ReplacementPolicy policy;
  private PolicyConfig policyConfig;
  private final OwnerThread owner;
  private boolean closed;

  private ExtentCache(
      String name, long capacityBytes, PolicyConfig config, MemoryBudget.Reservation reservation) {
    this.name = name;
    this.owner = new OwnerThread(name);
    this.capacityBytes = capacityBytes;
    this.reservation = reservation;
    this.memory = new ExtentMemory(capacityBytes);
    int capacityBlocks = (int) (capacityBytes >>> CacheKeys.BLOCK_SHIFT);
    this.index = new ExtentIndex(capacityBlocks);
    this.slots = new ExtentSlots(capacityBlocks);
    this.stats = new CacheStats(this);
    this.policyConfig = config;
    this.policy = config.create(capacityBlocks, handler);
  }

  /**
   * Opens a shard's cache: reserves {@code capacityBytes} (a positive multiple of 4096) from {@code
   * budget} as {@link MemoryUse#CACHE}, then allocates it. Throws {@link
   * io.tidestore.store.memory.MemoryBudgetExceededException} and allocates nothing if the budget is
   * short.
   */
  public static ExtentCache open(
      String name, long capacityBytes, PolicyConfig policy, MemoryBudget budget) {
    if (capacityBytes < CacheKeys.BLOCK_SIZE || capacityBytes % CacheKeys.BLOCK_SIZE != 0) {
      throw new IllegalArgumentException(
          "cache size must be a positive multiple of 4096 bytes: " + capacityBytes);
    }
    if ((capacityBytes >>> CacheKeys.BLOCK_SHIFT) > PolicySizing.MAX_CAPACITY_BLOCKS) {
      throw new IllegalArgumentException("cache size too large for one shard: " + capacityBytes);
    }
    MemoryBudget.Reservation r = budget.reserve(MemoryUse.CACHE, capacityBytes, name);
    try {
      return new ExtentCache(name, capacityBytes, policy, r);
    } catch (RuntimeException | OutOfMemoryError e) {
      r.close();
      throw e;
    }
  }

  /**
   * Makes the cache follow {@code owner}'s rule instead of binding to the first thread that uses
   * it: the classic engine's shard lock, held in turn by several threads. Before the first use
   * only.
   */
  public void ownedBy(Owner owner) {
    this.owner.bind(owner);
  }

  /** The cache's name (e.g. "extent cache of shard 3"). */
  public String name() {
    return name;
  }

  public long capacityBytes() {
    return capacityBytes;
  }

  /** The memory extents live in, to register with the shard's IoQueue (4096-aligned, <= 1 GiB). */
  public MemorySegment[] regions() {
    return memory.regions();
  }

  /** The policy in use now (owner thread). */
  public PolicyConfig policyConfig() {
    return policyConfig;
  }

  /** Per-shard counters and gauges for metrics. */
  public CacheStats stats() {
    return stats;
  }

  // ---------------------------------------------------------------- lookups

  /**
   * The cached extent covering {@code (objectId, block)}: a handle, or {@link #MISS}. Counts a hit
   * or a miss and tells the policy of the hit.
   */
  public long lookup(long objectId, int block) {
    return lookupKey(CacheKeys.key(objectId, block));
  }

  /** {@link #lookup} by packed key. */
  public long lookupKey(long key) {
    checkOpen();
    applyPendingPolicyIfAny();
    int slot = index.slotAt(key);
    if (slot == ExtentIndex.MISSING) {
      stats.misses++;
      return MISS;
    }
    stats.hits++;
    policy.recordHit(slots.startKey(slot));
    return slots.handle(slot);
  }

  /** Whether some cached extent covers the block; no stats, no policy update. */
  public boolean contains(long objectId, int block) {
    checkOpen();
    return index.slotAt(CacheKeys.key(objectId, block)) != ExtentIndex.MISSING;
  }

  /** The extent's bytes: {@code blockCount(handle) * 4096} of them, 4096-aligned. */
  public MemorySegment segment(long handle) {
    return slots.segment(slots.slotOf(handle));
  }

  /** First block of the extent (the lookup may have named a later block in it). */
  public int firstBlock(long handle) {
    return CacheKeys.block(slots.startKey(slots.slotOf(handle)));
  }

  public long objectId(long handle) {
    return CacheKeys.objectId(slots.startKey(slots.slotOf(handle)));
  }

  public int blockCount(long handle) {
    return slots.blocks(slots.slotOf(handle));
  }

  // ---------------------------------------------------------------- filling

  /**
   * A buffer for {@code blocks} blocks (1..1024) starting at {@code (objectId, firstBlock)}, to be
   * filled by I/O or a copy and then {@link #publish}ed or {@link #abandon}ed. Evicts by the policy
   * until the memory is there; returns {@link #NO_SPACE} if it cannot be (all pinned).
   */
  public long allocate(long objectId, int firstBlock, int blocks) {
    return allocate(objectId, firstBlock, blocks, true);
  }

  /**
   * {@link #allocate} without evicting: {@link #NO_SPACE} unless free memory holds the extent now
   * (not counted as a rejection: the caller chose not to evict).
   */
  public long allocateIfFree(long objectId, int firstBlock, int blocks) {
    return allocate(objectId, firstBlock, blocks, false);
  }

  private long allocate(long objectId, int firstBlock, int blocks, boolean mayEvict) {
    checkOpen();
    applyPendingPolicyIfAny();
    long key = CacheKeys.key(objectId, firstBlock);
    BuddyAllocator.orderFor(blocks);
    if (firstBlock + blocks > CacheKeys.MAX_BLOCKS_PER_OBJECT) {
      throw new IllegalArgumentException(
          "extent [" + firstBlock + ", " + (firstBlock + blocks) + ") runs past a 64 MiB object");
    }
    if (blocks > policy.capacityBlocks()) {
      stats.rejections++;
      return NO_SPACE;
    }
    int p = memory.allocate(blocks);
    if (p == BuddyAllocator.NONE && !mayEvict) {
      return NO_SPACE;
    }
    while (p == BuddyAllocator.NONE) {
      if (!policy.evictOne()) {
        stats.rejections++;
        return NO_SPACE;
      }
      p = memory.allocate(blocks);
    }
    return slots.handle(slots.allocate(key, blocks, p, memory.slice(p, blocks)));
  }

  /**
   * Makes a filled buffer visible: drops older extents overlapping it, marks overlapping buffers
   * still filling as stale, admits it to the policy. Returns false, freeing the buffer, if its
   * range was invalidated or overwritten by another publish while it filled (the bytes may predate
   * a write) or the policy found no room; the handle is dead either way. Publishes therefore win in
   * the order they are made: publish a durable write's extent after any read it supersedes began.
   */
  public boolean publish(long handle) {
    checkOpen();
    applyPendingPolicyIfAny();
    int slot = slots.slotOf(handle);
    byte s = slots.state(slot);
    if (s != ExtentSlots.FILLING && s != ExtentSlots.FILLING_STALE) {
      throw new IllegalStateException(
          "publish of an extent that is not filling: " + slots.describe(slot));
    }
    slots.stopFilling(slot);
    if (s == ExtentSlots.FILLING_STALE) {
      stats.staleFills++;
      release(slot);
      return false;
    }
    long key = slots.startKey(slot);
    int n = slots.blocks(slot);
    for (int i = 0; i < n; i++) {
      int other = index.slotAt(key + i);
      if (other != ExtentIndex.MISSING) {
        drop(other);
      }
    }
    // These bytes are newer than any overlapping buffer still filling (e.g. a read issued
    // before this write became durable): that fill must not replace them when it publishes.
    slots.markFillsStale(key, key + n);
    // Not yet indexed, so the handler cannot pick this extent as a victim of its own admission.
    slots.setState(slot, ExtentSlots.CACHED);
    if (!policy.admit(key, n)) {
      stats.rejections++;
      release(slot);
      return false;
    }
    index.add(key, n, slot);
    stats.cachedBlocks += n;
    stats.publishes++;
    return true;
  }

  /** Gives back a buffer whose I/O failed or is no longer wanted. */
  public void abandon(long handle) {
    checkOpen();
    int slot = slots.slotOf(handle);
    if (!slots.isFilling(slot)) {
      throw new IllegalStateException(
          "abandon of an extent that is not filling: " + slots.describe(slot));
    }
    slots.stopFilling(slot);
    release(slot);
  }

  // ---------------------------------------------------------------- pins

  /** Keeps a cached extent (and its memory) alive until {@link #unpin}; counts nest. */
  public void pin(long handle) {
    checkOpen();
    int slot = slots.slotOf(handle);
    if (slots.state(slot) != ExtentSlots.CACHED) {
      throw new IllegalStateException(
          "pin of an extent that is not cached: " + slots.describe(slot));
    }
    if (slots.pin(slot)) {
      stats.pinnedExtents++;
    }
  }

  /** Drops one pin; an extent invalidated while pinned is freed at its last unpin. */
  public void unpin(long handle) {
    checkOpen();
    int slot = slots.slotOf(handle);
    byte s = slots.state(slot);
    if (slots.pins(slot) <= 0 || (s != ExtentSlots.CACHED && s != ExtentSlots.RETIRED)) {
      throw new IllegalStateException(
          "unpin of an extent that is not pinned: " + slots.describe(slot));
    }
    if (slots.unpin(slot)) {
      stats.pinnedExtents--;
      if (s == ExtentSlots.RETIRED) {
        release(slot);
      }
    }
  }

  // ---------------------------------------------------------------- invalidation

  /**
   * Drops every cached extent that overlaps blocks {@code [fromBlock, toBlock)} of the object
   * (overwrite, truncate, remove), and marks overlapping buffers still filling as stale so their
   * publish is refused. Returns how many cached extents were dropped.
   */
  public int invalidate(long objectId, int fromBlock, int toBlock) {
    checkOpen();
    if (fromBlock < 0 || toBlock > CacheKeys.MAX_BLOCKS_PER_OBJECT || fromBlock > toBlock) {
      throw new IllegalArgumentException(
          "bad block range [" + fromBlock + ", " + toBlock + ") (blocks are 0..16383)");
    }
    long from = CacheKeys.key(objectId, 0) + fromBlock;
    long to = CacheKeys.key(objectId, 0) + toBlock;
    int dropped = 0;
    for (long k = from; k < to; k++) {
      int slot = index.slotAt(k);
      if (slot != ExtentIndex.MISSING) {
        // Skip the rest of this extent: drop() unindexes all of its blocks.
        long end = slots.startKey(slot) + slots.blocks(slot);
        drop(slot);
        dropped++;
        k = end - 1;
      }
    }
    slots.markFillsStale(from, to);
    stats.invalidations += dropped;
    return dropped;
  }

  /** {@link #invalidate} of the whole object (remove). */
  public int invalidateObject(long objectId) {
    return invalidate(objectId, 0, CacheKeys.MAX_BLOCKS_PER_OBJECT);
  }

  // ---------------------------------------------------------------- policy switch

  /**
   * Asks for a policy switch; callable from any thread. The owner thread applies it at its next
   * cache call or {@link #applyPendingPolicy()}; the future completes there with the new policy.
   * Every cached extent stays cached and valid (coldest first re-inserted as warm entries of the
   * new policy; 2Q's ghosts are not carried over). A newer request supersedes an unapplied one,
   * whose future is cancelled.
   */
  public CompletableFuture<PolicyConfig> requestPolicy(PolicyConfig config) {
    return policyRequests.request(config);
  }

  /** Applies a requested switch, if any (owner thread); returns whether one was applied. */
  public boolean applyPendingPolicy() {
    if (closed) {
      policyRequests.failPending(name);
      return false;
    }
    checkOpen();
    PolicyRequests.Request request = policyRequests.take();
    if (request == null) {
      return false;
    }
    ReplacementPolicy next = request.config().create(policy.capacityBlocks(), handler);
    policy.forEachResident(next::adopt);
    policy = next;
    policyConfig = request.config();
    stats.policySwitches++;
    request.done().complete(request.config());
    return true;
  }

  private void applyPendingPolicyIfAny() {
    if (policyRequests.isPending()) {
      applyPendingPolicy();
    }
  }

  ReplacementPolicy policy() {
    return policy;
  }

  // ---------------------------------------------------------------- internals

  /** Removes a cached extent from index and policy; frees it unless pinned. */
  private void drop(int slot) {
    unindex(slot);
    policy.remove(slots.startKey(slot));
    if (slots.pins(slot) > 0) {
      slots.setState(slot, ExtentSlots.RETIRED);
    } else {
      release(slot);
    }
  }

  private void unindex(int slot) {
    int n = slots.blocks(slot);
    index.remove(slots.startKey(slot), n);
    stats.cachedBlocks -= n;
  }

  private void release(int slot) {
    memory.free(slots.page(slot));
    slots.release(slot);
  }

  /** Every data-path call: the cache must be open and on its {@link OwnerThread}. */
  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException(name + " is closed");
    }
    owner.check();
  }

  long allocatedBytes() {
    return memory.allocatedBytes();
  }

  /** For leak tests: the arena is closed and the reservation returned. */
  boolean isReleased() {
    return !memory.isAlive() && reservation.isReleased();
  }

  /** Frees the memory (pinned extents included: their segments become inaccessible). */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      memory.close();
    } finally {
      reservation.close();
      policyRequests.failPending(name);
    }
  }

  /** The policy's view of pins and evictions: one instance, no allocation per call. */
  private final class Handler implements EvictionHandler {
    @Override
    public boolean isPinned(long key) {
      int slot = index.slotAt(key);
      return slot != ExtentIndex.MISSING && slots.pins(slot) > 0;
    }

    @Override
    public void evicted(long key, int weightBlocks) {
      int slot = index.slotAt(key);
      if (slot == ExtentIndex.MISSING || slots.startKey(slot) != key) {
        throw new IllegalStateException("policy evicted a key the cache does not hold: " + key);
      }
      unindex(slot);
      release(slot);
      stats.evictions++;
    }
  }
}
