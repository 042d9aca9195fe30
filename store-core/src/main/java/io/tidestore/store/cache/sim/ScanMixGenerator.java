package io.tidestore.store.cache.sim;

/**
 * {@code scan-mix} (ours; fio has no equivalent): the workload 2Q was built for (Johnson and
 * Shasha, section 1: a scan must not flush the hot pages). Phases alternate: {@code 3h} accesses
 * drawn uniformly from a hot set of the first h = n/10 blocks, then a sequential scan of h blocks
 * through the other 90%, resuming where the last scan stopped (wrapping), so scanned blocks recur
 * only after 9 phases.
 */
final class ScanMixGenerator extends BlockGenerator {
  private final long hot;
  private final long hotPhase;
  private long inPhase;
  private long scanCursor;

  ScanMixGenerator(long blocks, long seed) {
    super(blocks, seed);
    if (blocks < 20) {
      throw new IllegalArgumentException("scan-mix needs --blocks >= 20: " + blocks);
    }
    this.hot = blocks / 10;
    this.hotPhase = 3 * hot;
  }

  @Override
  public long next() {
    long pos = inPhase++;
    if (inPhase == hotPhase + hot) {
      inPhase = 0;
    }
    if (pos < hotPhase) {
      return random.nextLong(hot);
    }
    long block = hot + scanCursor;
    scanCursor = (scanCursor + 1) % (blocks - hot);
    return block;
  }
}
