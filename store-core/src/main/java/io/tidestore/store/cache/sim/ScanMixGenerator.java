package io.tidestore.store.cache.sim;

/**
 * {@code scan-mix} (ours; fio has no equivalent): the workload 2Q was built for (Johnson and
 * Shasha, section 1: a scan must not flush the hot pages). Phases alternate: {@code 3h} accesses
 * drawn uniformly from a hot set of the first h = n/10 blocks, then a sequential scan of h blocks
 * through the other 90%, resuming where the last scan stopped (wrapping), so scanned blocks recur
 * only after 9 phases.
 *
 * <p>{@code scan-rescan} reads every scan twice in a row (a scan re-read while its ghosts are still
 * in 2Q's A1out): textbook 2Q promotes the re-read into Am and flushes the hot set; the case
 * SeaStore's sequential-continuation rule is for.
 */
final class ScanMixGenerator extends BlockGenerator {
  private final long hot;
  private final long hotPhase;
  private final boolean rescan;
  private long inPhase;
  private long scanCursor;

  ScanMixGenerator(long blocks, long seed, boolean rescan) {
    super(blocks, seed);
    this.rescan = rescan;
    if (blocks < 20) {
      throw new IllegalArgumentException("scan-mix needs --blocks >= 20: " + blocks);
    }
    this.hot = blocks / 10;
    this.hotPhase = 3 * hot;
  }

  @Override
  public long next() {
    long scanLength = rescan ? 2 * hot : hot;
    long pos = inPhase++;
    if (inPhase == hotPhase + scanLength) {
      inPhase = 0;
    }
    if (pos < hotPhase) {
      return random.nextLong(hot);
    }
    long cold = blocks - hot;
    if (rescan && pos - hotPhase == hot) {
      scanCursor = Math.floorMod(scanCursor - hot, cold); // back to the start of this scan
    }
    long block = hot + scanCursor;
    scanCursor = (scanCursor + 1) % cold;
    return block;
  }
}
