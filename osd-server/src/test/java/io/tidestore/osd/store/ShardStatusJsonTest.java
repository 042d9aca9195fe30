package io.tidestore.osd.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidestore.store.api.ScrubStats;
import io.tidestore.store.api.ShardStats;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShardStatusJsonTest {
  private static ShardStats shard(long liveBlocks, long capacityBytes, int freeSegments) {
    return new ShardStats(
        0,
        0,
        0,
        0,
        0,
        63,
        freeSegments,
        0,
        liveBlocks,
        1,
        0,
        0,
        0,
        0,
        0,
        1 << 20,
        capacityBytes,
        null,
        0,
        new ScrubStats(false, 0, 0, 0, 0, 0, 0, 0, 0, 0, List.of()));
  }

  @Test
  void aFullShardShowsItsSpaceAndStaysHealthy() throws Exception {
    JsonNode status =
        new ObjectMapper()
            .readTree(
                "{"
                    + ShardStatusJson.members(
                        new ShardStats[] {
                          shard(14_940, 14_940L * 4096, 3), shard(10, 4096 * 20, 60)
                        })
                    + "}");
    assertEquals("ok", status.get("health").asText(), status.toString());
    JsonNode full = status.get("shards").get(0);
    assertFalse(full.get("read_only").asBoolean());
    assertEquals(14_940L * 4096, full.get("capacity_bytes").asLong());
    assertEquals(14_940L * 4096, full.get("used_bytes").asLong());
    assertEquals(3L << 20, full.get("free_bytes").asLong());
    JsonNode other = status.get("shards").get(1);
    assertEquals(10L * 4096, other.get("used_bytes").asLong());
    assertEquals(60L << 20, other.get("free_bytes").asLong());
  }
}
