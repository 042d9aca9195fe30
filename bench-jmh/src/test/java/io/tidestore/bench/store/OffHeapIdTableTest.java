package io.tidestore.bench.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.function.LongFunction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The benchmarked table must be a correct map on both memories, or the benchmark compares wrong
 * code: random puts, removes and lookups in a small table (long probe runs, wrap-around at the end,
 * backward shifts) against a HashMap.
 */
class OffHeapIdTableTest {
  @ParameterizedTest
  @ValueSource(strings = {"segment", "chronicle"})
  void behavesAsAMapUnderChurn(String memory) {
    LongFunction<OffHeapIdTable> make =
        memory.equals("segment")
            ? slots ->
                new IndexTableBenchmark.SegmentTable(slots, java.lang.foreign.Arena.ofShared())
            : IndexTableBenchmark.ChronicleTable::new;
    Random r = new Random(7);
    Map<Long, Long> model = new HashMap<>();
    try (OffHeapIdTable table = make.apply(64)) {
      for (int i = 0; i < 200_000; i++) {
        long id = 1 + r.nextInt(60);
        switch (r.nextInt(3)) {
          case 0 -> {
            if (model.size() < 48 || model.containsKey(id)) {
              table.put(id, i, id);
              model.put(id, (long) i);
            }
          }
          case 1 -> assertEquals(model.remove(id) != null, table.remove(id), "remove " + id);
          default -> assertEquals(model.getOrDefault(id, -1L), table.size(id), "size of " + id);
        }
        assertEquals(model.size(), table.count());
      }
      for (long id = 1; id <= 60; id++) {
        assertEquals(model.getOrDefault(id, -1L), table.size(id), "size of " + id);
      }
    }
  }
}
