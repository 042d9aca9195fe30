package io.tidestore.store.cache.sim;

/** The trace formats {@link TraceReader} understands; detected from the first line. */
public enum TraceFormat {
  /** One non-negative block number per line; blank lines and '#' comments are skipped. */
  BLOCKS,
  /** fio iolog v2 (header "fio version 2 iolog"): "FILE ACTION" or "FILE ACTION OFFSET LENGTH". */
  FIO_IOLOG_V2,
  /**
   * fio iolog v3 (header "fio version 3 iolog"): "TIME FILE ACTION" or "TIME FILE ACTION OFFSET
   * LENGTH"; the timestamp is ignored (the replay has no clock).
   */
  FIO_IOLOG_V3
}
