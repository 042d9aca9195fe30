package io.tidestore.osd.security;

/**
 * What a grant lets a client do, in cephx's words: {@code r} read, {@code rw} read and write
 * (including creating, resizing and removing images), {@code *} everything, administration included
 * (cache policy, scrub, pool and OSD operations, metrics dumps).
 */
public enum Access {
  READ("r"),
  READ_WRITE("rw"),
  ALL("*");

  private final String word;

  Access(String word) {
    this.word = word;
  }

  /** The auth file's word for it. */
  public String word() {
    return word;
  }

  /** Whether this access includes {@code needed}. */
  public boolean covers(Access needed) {
    return ordinal() >= needed.ordinal();
  }

  /** Parses {@code r}, {@code rw} or {@code *}; null for anything else. */
  static Access parse(String word) {
    for (Access a : values()) {
      if (a.word.equals(word)) {
        return a;
      }
    }
    return null;
  }
}
