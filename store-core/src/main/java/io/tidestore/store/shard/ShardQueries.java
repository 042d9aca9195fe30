package io.tidestore.store.shard;

import io.tidestore.store.api.Allocation;
import io.tidestore.store.api.HashRange;
import io.tidestore.store.api.ListPage;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ObjectStat;
import io.tidestore.store.api.ShardStore;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.api.StoreException.Code;
import io.tidestore.store.index.BlockEntry;
import io.tidestore.store.index.ObjectEntry;
import io.tidestore.store.record.Blocks;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The shard's queries: reads (served by {@link ReadPath}), stat, allocation, listings and
 * attributes, all of the applied state (see {@link ShardStore}, "Visibility"). {@link LogShard}
 * checks the threading rule before calling in. Owner thread only.
 */
final class ShardQueries {
  private final ShardContext ctx;
  private final ReadPath reads;

  ShardQueries(ShardContext ctx, ReadPath reads) {
    this.ctx = ctx;
    this.reads = reads;
  }

  /** The applied entry of an existing object; null (and {@code done} failed) when there is none. */
  private ObjectEntry existing(ObjectKey key, StoreCompletion<?> done) {
    ObjectEntry e = ctx.index.get(key);
    if (e == null || !e.exists) {
      done.complete(null, MutationGate.notFound(key));
      return null;
    }
    return e;
  }

  void read(ObjectKey key, long offset, MemorySegment into, StoreCompletion<Integer> done) {
    ObjectEntry e = existing(key, done);
    if (e == null) {
      return;
    }
    if (offset < 0) {
      done.complete(null, MutationGate.invalid("negative read offset " + offset));
      return;
    }
    reads.read(e, offset, into, done);
  }

  void stat(ObjectKey key, StoreCompletion<ObjectStat> done) {
    ObjectEntry e = existing(key, done);
    if (e != null) {
      done.complete(new ObjectStat(key, e.id, e.size, e.allocatedBlocks()), null);
    }
  }

  void allocation(ObjectKey key, long offset, long length, StoreCompletion<Allocation> done) {
    ObjectEntry e = existing(key, done);
    if (e == null) {
      return;
    }
    if (offset < 0 || length < 0) {
      done.complete(null, MutationGate.invalid("negative range " + offset + "+" + length));
      return;
    }
    long end = Math.min(e.size, offset + Math.min(length, ShardStore.MAX_OBJECT_BYTES));
    long[] ranges = new long[8];
    int n = 0;
    long runStart = -1;
    for (long b = offset >>> Blocks.SHIFT; (b << Blocks.SHIFT) < end; b++) {
      boolean data = !BlockEntry.isHole(e.block(b));
      long blockStart = Math.max(offset, b << Blocks.SHIFT);
      if (data && runStart < 0) {
        runStart = blockStart;
      } else if (!data && runStart >= 0) {
        ranges = add(ranges, n, runStart, blockStart);
        n += 2;
        runStart = -1;
      }
    }
    if (runStart >= 0) {
      ranges = add(ranges, n, runStart, end);
      n += 2;
    }
    done.complete(new Allocation(e.size, java.util.Arrays.copyOf(ranges, n)), null);
  }

  private static long[] add(long[] ranges, int n, long start, long end) {
    long[] r = n + 2 > ranges.length ? java.util.Arrays.copyOf(ranges, ranges.length * 2) : ranges;
    r[n] = start;
    r[n + 1] = end;
    return r;
  }

  void list(
      long pool, String prefix, ObjectKey startAfter, int limit, StoreCompletion<ListPage> done) {
    if (limit < 1 || prefix == null) {
      done.complete(
          null, MutationGate.invalid("list needs limit >= 1 and a prefix (may be empty)"));
      return;
    }
    done.complete(page(ctx.index.list(pool, prefix, startAfter, limit), limit), null);
  }

  void listHashRange(
      long pool, HashRange range, ObjectKey startAfter, int limit, StoreCompletion<ListPage> done) {
    if (limit < 1
        || range == null
        || pool < 0
        || (startAfter != null && startAfter.pool() != pool)) {
      done.complete(
          null,
          MutationGate.invalid(
              "listHashRange needs limit >= 1, a range, a pool >= 0 and a cursor of that pool"));
      return;
    }
    done.complete(page(ctx.index.listHashRange(pool, range, startAfter, limit), limit), null);
  }

  /** A page of the first {@code limit} of {@code keys}; a key past them means there is a next. */
  private static ListPage page(List<ObjectKey> keys, int limit) {
    if (keys.size() > limit) {
      List<ObjectKey> page = keys.subList(0, limit);
      return new ListPage(page, page.get(limit - 1));
    }
    return new ListPage(keys, null);
  }

  void getXattr(ObjectKey key, String name, StoreCompletion<byte[]> done) {
    ObjectEntry e = existing(key, done);
    if (e == null) {
      return;
    }
    byte[] v = e.xattr(name);
    if (v == null) {
      done.complete(
          null, new StoreException(Code.NO_ATTRIBUTE, "no xattr '" + name + "' on " + key.name()));
      return;
    }
    done.complete(v.clone(), null);
  }

  void getXattrs(ObjectKey key, String prefix, StoreCompletion<SortedMap<String, byte[]>> done) {
    ObjectEntry e = existing(key, done);
    if (e == null) {
      return;
    }
    if (prefix == null) {
      done.complete(null, MutationGate.invalid("getXattrs needs a prefix (may be empty)"));
      return;
    }
    TreeMap<String, byte[]> copy = new TreeMap<>();
    for (Map.Entry<String, byte[]> x : e.xattrs().entrySet()) {
      if (x.getKey().startsWith(prefix)) {
        copy.put(x.getKey(), x.getValue().clone());
      }
    }
    done.complete(copy, null);
  }
}
