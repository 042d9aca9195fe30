package io.tidestore.store.index;

import io.tidestore.store.api.ObjectKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A shard's object index: entries by key (ordered, for listing) and by numeric id (for replay and
 * the cleaner). Ids are never reused within a shard. Owner thread only.
 */
public final class ObjectIndex {
  private final TreeMap<ObjectKey, ObjectEntry> byKey = new TreeMap<>();
  // The same entries hashed: every read and write looks its object up, and a hash probe beats a
  // TreeMap descent comparing long, mostly equal names (rbd_data.<image>.<16 hex digits>).
  private final HashMap<ObjectKey, ObjectEntry> lookup = new HashMap<>();
  private final HashMap<Long, ObjectEntry> byId = new HashMap<>();
  private long nextId = 1;

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
    ObjectEntry entry = new ObjectEntry(key, id);
    byKey.put(key, entry);
    lookup.put(key, entry);
    byId.put(id, entry);
    nextId = Math.max(nextId, id + 1);
    return entry;
  }

  public void drop(ObjectEntry entry) {
    byKey.remove(entry.key, entry);
    lookup.remove(entry.key, entry);
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

  /** Heap bytes of the whole index (see {@link ObjectEntry#footprintBytes()}). */
  public long footprintBytes() {
    long bytes = 64;
    for (ObjectEntry e : byKey.values()) {
      bytes += e.footprintBytes();
    }
    return bytes;
  }
}
