package io.tidestore.store.cache;

import java.util.Locale;

/** The replacement policies an extent cache can run; names as config and the CLI spell them. */
public enum PolicyKind {
  /** Least recently used: one list, hits move to the head, the tail is evicted. */
  LRU("lru"),
  /** Full 2Q of Johnson and Shasha (VLDB 1994): A1in FIFO, A1out ghost FIFO, Am LRU. */
  TWO_Q("2q");

  private final String configName;

  PolicyKind(String configName) {
    this.configName = configName;
  }

  /** "lru" or "2q". */
  public String configName() {
    return configName;
  }

  /** Parses "lru" or "2q" (case-insensitive); a clear error names the accepted values. */
  public static PolicyKind parse(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    for (PolicyKind k : values()) {
      if (k.configName.equals(t)) {
        return k;
      }
    }
    throw new IllegalArgumentException(
        "unknown cache policy '" + text + "': expected 'lru' or '2q'");
  }

  @Override
  public String toString() {
    return configName;
  }
}
