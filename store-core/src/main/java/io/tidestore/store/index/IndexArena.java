package io.tidestore.store.index;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import net.openhft.chronicle.bytes.PointerBytesStore;

/**
 * The off-heap memory of one shard's object index (today the objects' block maps): regions of a
 * power-of-two size, from 8 bytes to {@link #MAX_REGION_BYTES}, carved from chunks of native memory
 * that a JDK {@link Arena} owns and read and written through chronicle-bytes {@code BytesStore}s
 * over them (chronicle checks bounds once per store rather than on every access, which is what made
 * it faster than {@code MemorySegment} for the index's table in {@code IndexTableBenchmark}; see
 * docs/benchmarks.md). A freed region goes on the free list of its size, linked through its own
 * first eight bytes, so the arena keeps no heap object per region: a region costs its bytes and
 * nothing on the heap.
 *
 * <p>A region is named by a handle, the chunk's number in the high 32 bits and the region's offset
 * in the low 32. Accesses are not bounds-checked against the region (the caller knows its size;
 * {@link ObjectEntry} checks every index), only against the chunk. Chunks are never given back
 * before {@link #close()}: a shard's index grows to its working size and stays there, and free
 * regions are reused first.
 *
 * <p>Owner thread only, like the index: mount builds it on one thread and hands it over to the
 * shard's owner, so chronicle's single-thread checks are off. {@link #close()} frees every chunk at
 * once (shard close); a handle must not be used after its region is freed.
 */
public final class IndexArena implements AutoCloseable {
  /** No region: the handle of an object without a block map. */
  public static final long NONE = -1L;

  static final int MIN_SHIFT = 3;
  static final int MAX_SHIFT = 20;

  /** The largest region; a 64 MiB object's block map (16,384 entries of 8 bytes) is 128 KiB. */
  public static final long MAX_REGION_BYTES = 1L << MAX_SHIFT;

  /**
   * The smallest chunk (4 KiB). A new chunk is a quarter of what the arena holds (a power of two,
   * from 4 KiB to 1 MiB), so a shard with a few small objects is charged little, the unused tail of
   * the newest chunk is at most a fifth of the arena, and a large index is one chunk per MiB.
   */
  private static final long MIN_CHUNK = 4096;

  private final Arena arena = Arena.ofShared();
  private PointerBytesStore[] chunks = new PointerBytesStore[4];
  private int chunkCount;

  /** Per size class (shift), the handle of the first free region, or {@link #NONE}. */
  private final long[] freeHead = new long[MAX_SHIFT + 1];

  /** Where the next fresh region is carved: chunk {@link #bumpChunk} at {@link #bumpOffset}. */
  private int bumpChunk = -1;

  private long bumpOffset;
  private long bumpLimit;
  private long nativeBytes;
  private boolean closed;

  public IndexArena() {
    Arrays.fill(freeHead, NONE);
  }

  /** The size class of a region holding at least {@code bytes} (at least 8). */
  public static int shiftFor(long bytes) {
    if (bytes > MAX_REGION_BYTES) {
      throw new IllegalArgumentException(
          "an index region of " + bytes + " bytes exceeds " + MAX_REGION_BYTES);
    }
    return Math.max(MIN_SHIFT, 64 - Long.numberOfLeadingZeros(Math.max(1, bytes) - 1));
  }

  /** A zeroed region of {@code 1 << shift} bytes. */
  public long allocate(int shift) {
    if (shift < MIN_SHIFT || shift > MAX_SHIFT) {
      throw new IllegalArgumentException("no index region size class " + shift);
    }
    long handle = freeHead[shift];
    long size = 1L << shift;
    if (handle != NONE) {
      PointerBytesStore chunk = chunk(handle);
      freeHead[shift] = chunk.readLong(offset(handle));
      chunk.zeroOut(offset(handle), offset(handle) + size);
      return handle;
    }
    if (bumpChunk < 0 || bumpLimit - bumpOffset < size) {
      newChunk(size);
    }
    handle = handle(bumpChunk, bumpOffset);
    bumpOffset += size;
    // Fresh chunk memory is zero (Arena.allocate zeroes it), so no zeroOut here.
    return handle;
  }

  /** Gives back a region of {@code 1 << shift} bytes that {@link #allocate} returned. */
  public void free(long handle, int shift) {
    chunk(handle).writeLong(offset(handle), freeHead[shift]);
    freeHead[shift] = handle;
  }

  public long readLong(long handle, long offset) {
    return chunk(handle).readLong(offset(handle) + offset);
  }

  public void writeLong(long handle, long offset, long value) {
    chunk(handle).writeLong(offset(handle) + offset, value);
  }

  /** Copies the first {@code bytes} of region {@code from} to the start of region {@code to}. */
  public void copy(long from, long to, long bytes) {
    chunk(to).write(offset(to), chunk(from), offset(from), bytes);
  }

  /** Native bytes held (every chunk, in use or free): what the index is charged for. */
  public long nativeBytes() {
    return nativeBytes;
  }

  private void newChunk(long atLeast) {
    // The rest of the current chunk goes to the free lists, largest pieces first; every region
    // size is a power of two of at least 8 and offsets are multiples of 8, so nothing is lost.
    while (bumpChunk >= 0 && bumpLimit - bumpOffset >= (1L << MIN_SHIFT)) {
      int shift = Math.min(MAX_SHIFT, 63 - Long.numberOfLeadingZeros(bumpLimit - bumpOffset));
      // Keep each piece aligned to its size, so pieces never straddle what a later split needs.
      while (shift > MIN_SHIFT && (bumpOffset & ((1L << shift) - 1)) != 0) {
        shift--;
      }
      free(handle(bumpChunk, bumpOffset), shift);
      bumpOffset += 1L << shift;
    }
    if (chunkCount == chunks.length) {
      chunks = Arrays.copyOf(chunks, chunkCount * 2);
    }
    long quarter = Long.highestOneBit(Math.max(MIN_CHUNK, nativeBytes / 4));
    long bytes = Math.max(atLeast, Math.min(MAX_REGION_BYTES, quarter));
    MemorySegment memory = arena.allocate(bytes, 64);
    PointerBytesStore store = new PointerBytesStore();
    store.set(memory.address(), bytes);
    store.singleThreadedCheckDisabled(true);
    chunks[chunkCount] = store;
    bumpChunk = chunkCount++;
    bumpOffset = 0;
    bumpLimit = bytes;
    nativeBytes += bytes;
  }

  private PointerBytesStore chunk(long handle) {
    return chunks[(int) (handle >>> 32)];
  }

  private static long offset(long handle) {
    return handle & 0xffff_ffffL;
  }

  private static long handle(int chunk, long offset) {
    return ((long) chunk << 32) | offset;
  }

  /** Frees every chunk; every handle is dead from here on. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (int i = 0; i < chunkCount; i++) {
      chunks[i].releaseLast();
      chunks[i] = null;
    }
    chunkCount = 0;
    nativeBytes = 0;
    arena.close();
  }
}
