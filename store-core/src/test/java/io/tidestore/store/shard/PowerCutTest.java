package io.tidestore.store.shard;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

import io.tidestore.store.api.JournalFlush;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.ObjectStat;
import io.tidestore.store.api.StoreCompletion;
import io.tidestore.store.api.StoreConfig;
import io.tidestore.store.api.StoreException;
import io.tidestore.store.testing.StoreHarness;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random mutations with many batches in flight, a power cut at a random point, remount, and a check
 * per object: its state must be the result of a prefix of its operations that contains every
 * acknowledged one (nothing acknowledged lost, nothing unacknowledged half-applied). Several
 * crashes per seed, many seeds.
 */
class PowerCutTest {
  @TempDir Path root;

  /** One object's operations in issue order and their acknowledgements. */
  static final class Model {
    final ObjectKey key;
    final List<Object[]> ops = new ArrayList<>();
    int acked;
    boolean baseExists;
    byte[] base = new byte[0];

    Model(ObjectKey key) {
      this.key = key;
    }

    /**
     * If {@code actual} (null: no object) is the state after some prefix of the operations that
     * keeps every acknowledged one, makes it the new base and returns true.
     */
    boolean rebaseOnPrefix(byte[] actual) {
      for (int k = acked; k <= ops.size(); k++) {
        byte[] expected = state(k);
        if (Arrays.equals(expected, actual)) {
          baseExists = expected != null;
          base = expected == null ? new byte[0] : expected;
          ops.clear();
          acked = 0;
          return true;
        }
      }
      return false;
    }

    /** State after the base plus the first {@code k} operations; null when removed. */
    byte[] state(int k) {
      byte[] s = baseExists ? base.clone() : null;
      for (int i = 0; i < k; i++) {
        Object[] op = ops.get(i);
        switch ((String) op[0]) {
          case "write" -> {
            long off = (long) op[1];
            byte[] d = (byte[]) op[2];
            if (s == null) {
              s = new byte[0];
            }
            if (off + d.length > s.length) {
              s = Arrays.copyOf(s, (int) (off + d.length));
            }
            System.arraycopy(d, 0, s, (int) off, d.length);
          }
          case "truncate" -> s = Arrays.copyOf(s == null ? new byte[0] : s, (int) (long) op[1]);
          case "remove" -> s = null;
          default -> throw new IllegalStateException();
        }
      }
      return s;
    }
  }

  /** Seeds 1..N; {@code -Dpowercut.seeds=N} runs more (default 20). */
  static IntStream seeds() {
    return IntStream.rangeClosed(1, Integer.getInteger("powercut.seeds", 20));
  }

  @ParameterizedTest
  @MethodSource("seeds")
  void acknowledgedSurvivesAndNothingHalfApplied(int seed) throws IOException {
    for (int variant = 0; variant < 4; variant++) {
      Path dir = Files.createDirectories(root.resolve("s" + variant));
      // Both ways of making a record durable: a shared fdatasync must cover only records whose
      // writes completed before it was issued, which the simulator's reordering would expose.
      JournalFlush flush =
          variant % 2 == 0 ? JournalFlush.SHARED_FDATASYNC : JournalFlush.RECORD_DSYNC;
      run(dir, seed * 1000L + variant, StoreHarness.testConfig().withJournalFlush(flush));
    }
  }

  private void run(Path dir, long seed, StoreConfig config) throws IOException {
    Random r = new Random(seed);
    try (StoreHarness h = new StoreHarness(dir, seed, config)) {
      List<Model> models = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        models.add(new Model(new ObjectKey(1, "obj-" + i)));
      }
      StoreException[] failure = {null};
      for (int cycle = 0; cycle < 4; cycle++) {
        int rounds = 5 + r.nextInt(40);
        for (int round = 0; round < rounds; round++) {
          int n = 1 + r.nextInt(6);
          for (int i = 0; i < n; i++) {
            issue(h, r, models.get(r.nextInt(models.size())), failure);
          }
          int passes = r.nextInt(3);
          for (int p = 0; p < passes; p++) {
            h.pass();
          }
          assertNull(failure[0], "an operation failed");
        }
        h.crashAndRemount();
        for (Model m : models) {
          verifyAndRebase(h, m, seed, cycle);
        }
      }
    }
  }

  private static void issue(StoreHarness h, Random r, Model m, StoreException[] failure) {
    int which = r.nextInt(10);
    StoreCompletion<Void> ack =
        (v, e) -> {
          if (e != null) {
            failure[0] = e;
          } else {
            m.acked++;
          }
        };
    byte[] current = m.state(m.ops.size());
    if (which < 7 || current == null) {
      long off = r.nextInt(40_000);
      byte[] d = new byte[1 + r.nextInt(r.nextBoolean() ? 600 : 12_000)];
      r.nextBytes(d);
      m.ops.add(new Object[] {"write", off, d});
      h.shard.write(m.key, off, MemorySegment.ofArray(d), ack);
    } else if (which < 9) {
      long size = r.nextInt(45_000);
      m.ops.add(new Object[] {"truncate", size});
      h.shard.truncate(m.key, size, ack);
    } else {
      m.ops.add(new Object[] {"remove"});
      h.shard.remove(m.key, ack);
    }
  }

  private static void verifyAndRebase(StoreHarness h, Model m, long seed, int cycle)
      throws IOException {
    byte[] actual;
    try {
      ObjectStat st = h.call((StoreCompletion<ObjectStat> c) -> h.shard.stat(m.key, c));
      actual = h.read(m.key, 0, (int) st.size());
    } catch (StoreException e) {
      if (e.code() != StoreException.Code.NOT_FOUND) {
        throw e;
      }
      actual = null;
    }
    if (m.rebaseOnPrefix(actual)) {
      return;
    }
    StringBuilder diag = new StringBuilder();
    for (int k = 0; k <= m.ops.size(); k++) {
      byte[] expected = m.state(k);
      Object[] op = k > 0 ? m.ops.get(k - 1) : new Object[] {"base"};
      diag.append("\n  prefix ")
          .append(k)
          .append(" after ")
          .append(op[0])
          .append(op.length > 1 ? " " + op[1] : "")
          .append(op.length > 2 ? " len " + ((byte[]) op[2]).length : "")
          .append(": size ")
          .append(expected == null ? "removed" : expected.length)
          .append(" first diff ")
          .append(expected == null || actual == null ? -2 : Arrays.mismatch(expected, actual));
    }
    fail(
        diag
            + "\nseed "
            + seed
            + " cycle "
            + cycle
            + ": "
            + m.key.name()
            + " matches no prefix of its "
            + m.ops.size()
            + " operations that keeps all "
            + m.acked
            + " acknowledged ones (size "
            + (actual == null ? "removed" : actual.length)
            + ")");
  }
}
