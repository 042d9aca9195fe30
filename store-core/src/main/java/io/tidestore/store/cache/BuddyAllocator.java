package io.tidestore.store.cache;

import java.util.Arrays;

/**
 * A binary buddy allocator over the 4 KiB pages of one extent-memory region: size classes are the
 * powers of two from 4 KiB (order 0) to 4 MiB (order 10). Freed blocks coalesce with their buddy,
 * so mixed 4 KiB-4 MiB extents cannot fragment memory for good: external fragmentation is bounded
 * by the buddy invariant, internal waste by rounding up to the class (at most half a block; none
 * for the store's 4 KiB / 64 KiB / 4 MiB extents). Knuth, TAOCP vol. 1, 2.5.
 *
 * <p>Bookkeeping is primitive arrays indexed by page (free lists threaded through them); no
 * allocation after construction. Owner-thread only.
 */
final class BuddyAllocator {
  static final int MAX_ORDER = 10;
  static final int NONE = -1;

  private final int pages;

  /** Order of the free block starting at this page, or -1. */
  private final byte[] freeOrder;

  /** Order of the allocated block starting at this page, or -1. */
  private final byte[] allocOrder;

  private final int[] next;
  private final int[] prev;
  private final int[] heads = new int[MAX_ORDER + 1];
  private int freePages;

  BuddyAllocator(int pages) {
    if (pages < 1) {
      throw new IllegalArgumentException("need at least one page: " + pages);
    }
    this.pages = pages;
    this.freeOrder = new byte[pages];
    this.allocOrder = new byte[pages];
    this.next = new int[pages];
    this.prev = new int[pages];
    Arrays.fill(freeOrder, (byte) -1);
    Arrays.fill(allocOrder, (byte) -1);
    Arrays.fill(heads, NONE);
    // Seed with the largest naturally aligned blocks that cover [0, pages).
    int p = 0;
    while (p < pages) {
      int o = MAX_ORDER;
      while (o > 0 && ((p & ((1 << o) - 1)) != 0 || p + (1 << o) > pages)) {
        o--;
      }
      push(p, o);
      p += 1 << o;
    }
    freePages = pages;
  }

  /** Smallest order whose block holds {@code blocks} pages. */
  static int orderFor(int blocks) {
    if (blocks < 1 || blocks > (1 << MAX_ORDER)) {
      throw new IllegalArgumentException("extent must be 1..1024 blocks (4 KiB..4 MiB): " + blocks);
    }
    return 32 - Integer.numberOfLeadingZeros(blocks - 1);
  }

  int pages() {
    return pages;
  }

  int freePages() {
    return freePages;
  }

  /** Allocates a block of {@code 2^order} pages; returns its first page or {@link #NONE}. */
  int allocate(int order) {
    int o = order;
    while (o <= MAX_ORDER && heads[o] == NONE) {
      o++;
    }
    if (o > MAX_ORDER) {
      return NONE;
    }
    int p = heads[o];
    unlink(p, o);
    while (o > order) {
      o--;
      push(p + (1 << o), o);
    }
    allocOrder[p] = (byte) order;
    freePages -= 1 << order;
    return p;
  }

  /** Frees the block allocated at {@code page}, merging it with free buddies. */
  void free(int page) {
    int order = allocOrder[page];
    if (order < 0) {
      throw new IllegalStateException("page " + page + " is not the start of an allocated block");
    }
    allocOrder[page] = -1;
    freePages += 1 << order;
    int p = page;
    while (order < MAX_ORDER) {
      int buddy = p ^ (1 << order);
      if (buddy >= pages || freeOrder[buddy] != order) {
        break;
      }
      unlink(buddy, order);
      p = Math.min(p, buddy);
      order++;
    }
    push(p, order);
  }

  private void push(int p, int o) {
    freeOrder[p] = (byte) o;
    prev[p] = NONE;
    next[p] = heads[o];
    if (heads[o] != NONE) {
      prev[heads[o]] = p;
    }
    heads[o] = p;
  }

  private void unlink(int p, int o) {
    int n = next[p];
    int pr = prev[p];
    if (pr != NONE) {
      next[pr] = n;
    } else {
      heads[o] = n;
    }
    if (n != NONE) {
      prev[n] = pr;
    }
    freeOrder[p] = -1;
  }

  /** Whether every page is free and coalesced back into the seed blocks (for leak tests). */
  boolean isFullyFree() {
    return freePages == pages;
  }
}
