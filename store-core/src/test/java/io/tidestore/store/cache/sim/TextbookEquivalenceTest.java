package io.tidestore.store.cache.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.cache.PolicyConfig;
import io.tidestore.store.cache.PolicyKind;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * With the continuation rule off, the replay must give the textbook algorithms' numbers exactly:
 * checked access by access against plain-collections transcriptions of LRU and of 2Q's full version
 * (Johnson and Shasha, VLDB 1994, figure "2Q, full version").
 */
class TextbookEquivalenceTest {

  /** The paper's pseudo-code, transcribed with java.util collections. */
  static final class Reference2Q {
    final int capacity;
    final int kin;
    final int kout;
    final Deque<Long> a1in = new ArrayDeque<>(); // head = first
    final Set<Long> a1inSet = new HashSet<>();
    final Deque<Long> a1out = new ArrayDeque<>();
    final Set<Long> a1outSet = new HashSet<>();
    final LinkedHashSet<Long> am = new LinkedHashSet<>(); // iteration order: LRU first

    Reference2Q(int capacity, double kin, double kout) {
      this.capacity = capacity;
      this.kin = (int) Math.floor(kin * capacity);
      this.kout = (int) Math.floor(kout * capacity);
    }

    boolean access(long x) {
      if (am.contains(x)) {
        am.remove(x);
        am.add(x);
        return true;
      }
      if (a1inSet.contains(x)) {
        return true;
      }
      if (a1outSet.contains(x)) {
        a1out.remove(x);
        a1outSet.remove(x);
        reclaim();
        am.add(x);
        return false;
      }
      reclaim();
      a1in.addFirst(x);
      a1inSet.add(x);
      return false;
    }

    void reclaim() {
      if (a1in.size() + am.size() < capacity) {
        return;
      }
      if (a1in.size() > kin || am.isEmpty()) {
        long y = a1in.removeLast();
        a1inSet.remove(y);
        if (a1out.size() >= kout && !a1out.isEmpty()) {
          a1outSet.remove(a1out.removeLast());
        }
        if (kout > 0) {
          a1out.addFirst(y);
          a1outSet.add(y);
        }
      } else {
        long y = am.iterator().next();
        am.remove(y);
      }
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "zipf:0.768780",
        "zoned:60/10:30/20:8/30:2/40",
        "normal:20",
        "uniform",
        "scan-mix"
      })
  void twoQMatchesThePaperAccessByAccess(String spec) {
    long[] trace = BlockGenerator.generate(spec, 5_000, 60_000, 11);
    for (int capacity : new int[] {1, 2, 7, 100, 640, 2_500}) {
      for (double[] k : new double[][] {{0.25, 0.5}, {0.1, 0.0}, {0.5, 1.0}}) {
        Reference2Q ref = new Reference2Q(capacity, k[0], k[1]);
        TraceReplay replay =
            new TraceReplay(new PolicyConfig(PolicyKind.TWO_Q, k[0], k[1], false), capacity);
        for (int i = 0; i < trace.length; i++) {
          assertEquals(
              ref.access(trace[i]),
              replay.access(trace[i]),
              spec + " capacity " + capacity + " access " + i);
        }
        assertEquals(ref.a1in.size() + ref.am.size(), replay.policy().residentBlocks());
        assertEquals(ref.a1out.size(), replay.policy().a1outBlocks());
      }
    }
  }

  @Test
  void lruMatchesAnAccessOrderedLinkedHashMap() {
    long[] trace = BlockGenerator.generate("zipf:0.9", 10_000, 100_000, 3);
    for (int capacity : new int[] {1, 50, 1_000}) {
      LinkedHashMap<Long, Boolean> ref =
          new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(java.util.Map.Entry<Long, Boolean> e) {
              return size() > capacity;
            }
          };
      TraceReplay replay = new TraceReplay(PolicyConfig.lru(), capacity);
      for (long b : trace) {
        boolean hit = ref.get(b) != null;
        if (!hit) {
          ref.put(b, Boolean.TRUE);
        }
        assertEquals(hit, replay.access(b));
      }
    }
  }

  @Test
  void twoQBeatsLruOnScanMix() {
    long[] trace = BlockGenerator.generate("scan-mix", 10_000, 200_000, 1);
    int capacity = 1_500; // holds the hot 1,000 blocks but not a hot set plus a 1,000-block scan
    double lru = new TraceReplay(PolicyConfig.lru(), capacity).replay(trace).hitRatio();
    double twoQ = new TraceReplay(PolicyConfig.twoQ(false), capacity).replay(trace).hitRatio();
    double twoQSeq = new TraceReplay(PolicyConfig.twoQ(true), capacity).replay(trace).hitRatio();
    assertTrue(twoQ > lru + 0.05, "2Q " + twoQ + " vs LRU " + lru);
    assertTrue(twoQSeq >= twoQ - 0.01, "2Q+seq " + twoQSeq + " vs 2Q " + twoQ);
  }

  @Test
  void continuationRuleKeepsARescanOutOfAm() {
    long[] trace = BlockGenerator.generate("scan-rescan", 10_000, 200_000, 1);
    // 1.3x the hot set: the re-read scan's ghosts are in A1out and Am has no room to spare.
    // (Measured across capacities the rule helps between ~1.2x and 1.5x and can cost a little
    // outside; docs/benchmarks.md has the table.)
    int capacity = 1_300;
    double lru = new TraceReplay(PolicyConfig.lru(), capacity).replay(trace).hitRatio();
    double twoQ = new TraceReplay(PolicyConfig.twoQ(false), capacity).replay(trace).hitRatio();
    double twoQSeq = new TraceReplay(PolicyConfig.twoQ(true), capacity).replay(trace).hitRatio();
    assertTrue(
        twoQSeq > twoQ + 0.02, "2Q+seq " + twoQSeq + " vs 2Q " + twoQ + " (LRU " + lru + ")");
  }
}
