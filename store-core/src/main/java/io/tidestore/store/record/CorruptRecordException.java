package io.tidestore.store.record;

/** A record, superblock or checkpoint whose bytes do not parse or whose checksum fails. */
public final class CorruptRecordException extends Exception {
  private static final long serialVersionUID = 1L;

  public CorruptRecordException(String message) {
    super(message);
  }
}
