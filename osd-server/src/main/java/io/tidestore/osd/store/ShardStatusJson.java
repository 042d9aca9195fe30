package io.tidestore.osd.store;

import io.tidestore.store.api.ScrubStats;
import io.tidestore.store.api.ShardStats;
import io.tidestore.store.api.ShardStore;
import java.time.Instant;

/**
 * The shards' members of the {@code /status} JSON: {@code "health"} ({@code ok}, or {@code
 * degraded} while a shard is read-only or the scrub has found damage) and {@code "shards"}, one
 * object per shard with its read-only state and reason, its space (capacity, live data, free
 * segments: a full shard is not an unhealthy one), deferred checkpoints and scrub (fields in
 * docs/reliability.md).
 */
final class ShardStatusJson {
  private ShardStatusJson() {}

  static String members(ShardStats[] shards) {
    boolean degraded = false;
    StringBuilder json = new StringBuilder(",\"shards\":[");
    for (int i = 0; i < shards.length; i++) {
      ShardStats s = shards[i];
      if (i > 0) {
        json.append(',');
      }
      json.append("{\"shard\":").append(i);
      if (s == null) {
        json.append(",\"state\":\"unknown\"}");
        continue;
      }
      degraded |= s.readOnly() || s.scrub().errors() > 0;
      json.append(",\"read_only\":").append(s.readOnly());
      json.append(",\"read_only_reason\":").append(quoted(s.readOnlyReason()));
      json.append(",\"capacity_bytes\":").append(s.capacityBytes());
      json.append(",\"used_bytes\":").append(s.liveBlocks() * ShardStore.BLOCK_SIZE);
      json.append(",\"free_bytes\":").append((long) s.segmentsFree() * s.segmentBytes());
      json.append(",\"checkpoints_deferred\":").append(s.checkpointsDeferred());
      json.append(",\"scrub\":").append(scrub(s.scrub())).append('}');
    }
    json.append(']');
    return "\"health\":\"" + (degraded ? "degraded" : "ok") + "\"" + json;
  }

  private static String scrub(ScrubStats s) {
    StringBuilder json =
        new StringBuilder("{\"running\":")
            .append(s.running())
            .append(",\"passes\":")
            .append(s.passes())
            .append(",\"pass_blocks_done\":")
            .append(s.passBlocksDone())
            .append(",\"pass_blocks_total\":")
            .append(s.passBlocksTotal())
            .append(",\"checked_bytes\":")
            .append(s.bytesChecked())
            .append(",\"errors\":")
            .append(s.errors())
            .append(",\"rate_bytes_per_second\":")
            .append(s.rateBytesPerSecond())
            .append(",\"interval_seconds\":")
            .append(s.intervalNanos() / 1_000_000_000L)
            .append(",\"last_pass_end\":")
            .append(
                s.lastPassEndMillis() == 0
                    ? "null"
                    : quoted(Instant.ofEpochMilli(s.lastPassEndMillis()).toString()))
            .append(",\"damaged\":[");
    for (int i = 0; i < s.damaged().size(); i++) {
      json.append(i > 0 ? "," : "").append(quoted(s.damaged().get(i)));
    }
    return json.append("]}").toString();
  }

  private static String quoted(String s) {
    if (s == null) {
      return "null";
    }
    StringBuilder out = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}
