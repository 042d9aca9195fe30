package io.tidestore.store.index;

import io.tidestore.store.api.HashRange;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.PlacementHash;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A shard's object index: entries by key (ordered, for listing) and by numeric id (for replay and
 * the cleaner). Ids are never reused within a shard. The entries are on the heap, their block maps
 * off it in the index's {@link IndexArena}, which {@link #close()} frees. Owner thread only.
 */
public final class ObjectIndex implements AutoCloseable {
  private final TreeMap<ObjectKey, ObjectEntry> byKey = new TreeMap<>();
  // The same entries hashed: every read and write looks its object up, and a hash probe beats a
  // TreeMap descent comparing long, mostly equal names (rbd_data.<image>.<16 hex digits>).
  private final HashMap<ObjectKey, ObjectEntry> lookup = new HashMap<>();
  private final HashMap<Long, ObjectEntry> byId = new HashMap<>();
  private final IndexArena arena = new IndexArena();
  private long nextId = 1;

  /** Heap bytes of the entries (estimated); the arena's native bytes are added to it on reading. */
  private long footprint = EMPTY_FOOTPRINT;

  private IndexMemory memory;

  private static final long EMPTY_FOOTPRINT = 64;

  /**
   * Charges the index to {@code memory} from now on, covering what is already loaded; throws {@link
   * io.tidestore.store.memory.MemoryBudgetExceededException} if that does not fit.
   */
  public void attachMemory(IndexMemory memory) {
    memory.require(footprintBytes());
    this.memory = memory;
  }

  /**
   * Whether a new object fits under the index's reservation (growing it if the budget allows). When
   * false, creating objects must fail; existing ones keep working.
   */
  public boolean admitsNewObject() {
    if (memory == null) {
      return true;
    }
    long bytes = footprintBytes();
    boolean fits = memory.cover(bytes + IndexMemory.NEW_OBJECT_BYTES);
    memory.note(fits, bytes);
    return fits;
  }

  /**
   * Frees the block maps and gives the index's reservation back (shard close, or an index that
   * mount loaded and then set aside); its entries must not be used after.
   */
  @Override
  public void close() {
    if (memory != null) {
      memory.close();
      memory = null;
    }
    arena.close();
  }

  /**
   * An entry of this index changed its heap footprint by {@code delta} bytes, or (0) its block map
   * grew the arena.
   */
  void adjust(long delta) {
    footprint += delta;
    if (delta >= 0 && memory != null) {
      long bytes = footprintBytes();
      if (!memory.cover(bytes)) {
        // Growth of an existing object is applied anyway: its record is already durable.
        memory.note(false, bytes);
      }
    }
  }

  public ObjectEntry get(ObjectKey key) {
    return lookup.get(key);
  }

  public ObjectEntry byId(long id) {
    return byId.get(id);
  }

  /** A new entry with a fresh id (the write path, before its CREATE applies). */
  public ObjectEntry create(ObjectKey key) {
    return insert(key, nextId++);
  }

  /** An entry with a known id (replay and checkpoint load). */
  public ObjectEntry insert(ObjectKey key, long id) {
    ObjectEntry entry = new ObjectEntry(key, id, arena);
    ObjectEntry replaced = byKey.put(key, entry);
    lookup.put(key, entry);
    if (replaced != null) {
      replaced.ownerIndex = null;
      adjust(-replaced.footprintBytes());
      replaced.freeBlocks();
    }
    byId.put(id, entry);
    entry.ownerIndex = this;
    adjust(entry.footprintBytes());
    nextId = Math.max(nextId, id + 1);
    return entry;
  }

  public void drop(ObjectEntry entry) {
    lookup.remove(entry.key, entry);
    if (byKey.remove(entry.key, entry)) {
      entry.ownerIndex = null;
      adjust(-entry.footprintBytes());
      entry.freeBlocks();
    }
    byId.remove(entry.id, entry);
  }

  public long nextId() {
    return nextId;
  }

  public void nextId(long id) {
    nextId = Math.max(nextId, id);
  }

  public Collection<ObjectEntry> entries() {
    return byKey.values();
  }

  /** Number of objects that exist (applied). */
  public long objectCount() {
    long n = 0;
    for (ObjectEntry e : byKey.values()) {
      if (e.exists) {
        n++;
      }
    }
    return n;
  }

  /**
   * Up to {@code limit + 1} existing keys of {@code pool} starting with {@code prefix}, after
   * {@code startAfter} (the extra one tells the caller there is a next page).
   */
  public List<ObjectKey> list(long pool, String prefix, ObjectKey startAfter, int limit) {
    List<ObjectKey> out = new ArrayList<>();
    Map<ObjectKey, ObjectEntry> tail;
    if (startAfter != null
        && startAfter.pool() == pool
        && startAfter.name().compareTo(prefix) >= 0) {
      tail = byKey.tailMap(startAfter, false);
    } else if (prefix.isEmpty()) {
      tail = byKey.tailMap(new ObjectKey(pool, "\0"), true);
    } else {
      tail = byKey.tailMap(new ObjectKey(pool, prefix), true);
    }
    for (var e : tail.entrySet()) {
      ObjectKey k = e.getKey();
      // Names with the prefix are contiguous in key order and the tail starts inside them.
      if (k.pool() != pool || !k.name().startsWith(prefix)) {
        break;
      }
      if (e.getValue().exists) {
        out.add(k);
        if (out.size() > limit) {
          break;
        }
      }
    }
    return out;
  }

  /**
   * Up to {@code limit + 1} existing keys of {@code pool} whose placement hash is in {@code range},
   * in hash order after {@code startAfter} (a key of {@code pool}, or null), smallest first (the
   * extra one tells the caller there is a next page). Scans the pool's entries: see {@link
   * io.tidestore.store.api.ShardStore#listHashRange} for the cost.
   */
  public List<ObjectKey> listHashRange(
      long pool, HashRange range, ObjectKey startAfter, int limit) {
    int afterHash = startAfter == null ? 0 : startAfter.placementHash();
    HashOrderSelection page = new HashOrderSelection((int) Math.min(Integer.MAX_VALUE, limit + 1L));
    // "\0" sorts before every name (names are not empty), so the tail starts at the pool's first.
    for (ObjectEntry e : byKey.tailMap(new ObjectKey(pool, "\0"), true).values()) {
      if (e.key.pool() != pool) {
        break;
      }
      if (!e.exists) {
        continue;
      }
      int hash = e.placementHash();
      if (range.contains(hash)
          && (startAfter == null
              || PlacementHash.compare(hash, e.key.name(), afterHash, startAfter.name()) > 0)) {
        page.offer(e);
      }
    }
    return page.drainInOrder();
  }

  /**
   * Bytes of the whole index: the entries' heap estimate (see {@link
   * ObjectEntry#footprintBytes()}), kept up to date as entries change, plus the native bytes of the
   * block maps' arena; O(1).
   */
  public long footprintBytes() {
    return footprint + arena.nativeBytes();
  }

  /** Native bytes of the block maps (the arena's chunks, in use or free). */
  public long nativeBytes() {
    return arena.nativeBytes();
  }

  /** {@link #footprintBytes()} summed afresh over every entry (tests check the running sum). */
  public long recountFootprintBytes() {
    long bytes = EMPTY_FOOTPRINT;
    for (ObjectEntry e : byKey.values()) {
      bytes += e.footprintBytes();
    }
    return bytes + arena.nativeBytes();
  }
}
