package io.tidestore.osd.net;

/**
 * Backpressure for one connection: at {@code max} requests in flight the connection stops reading
 * ({@link ReadGate#BACKPRESSURE}), and it reads again once half of them have completed, so a client
 * that pipelines without bound cannot make the server hold unbounded work or replies. One instance
 * per channel, used on its event loop only.
 */
public final class InFlightLimit {
  private final ReadGate gate;
  private final int max;
  private int inFlight;

  public InFlightLimit(ReadGate gate, int max) {
    this.gate = gate;
    this.max = max;
  }

  /** Counts a request in flight; at the limit, stops reading. */
  public void started() {
    inFlight++;
    if (inFlight >= max) {
      gate.pause(ReadGate.BACKPRESSURE);
    }
  }

  /** Counts a request done; call {@link #resumeIfDrained} once its reply is written. */
  public void finished() {
    inFlight--;
  }

  public int inFlight() {
    return inFlight;
  }

  /**
   * Reads again when reading was stopped for backpressure, at most half the limit is in flight and
   * the outbound buffer is {@code writable} (below its high-water mark).
   */
  public void resumeIfDrained(boolean writable) {
    if (gate.isPaused(ReadGate.BACKPRESSURE) && inFlight <= max / 2 && writable) {
      gate.resume(ReadGate.BACKPRESSURE);
    }
  }

  /** Stops reading while the outbound buffer is full; reads again as {@link #resumeIfDrained}. */
  public void writabilityChanged(boolean writable) {
    if (!writable) {
      gate.pause(ReadGate.BACKPRESSURE);
    } else {
      resumeIfDrained(true);
    }
  }
}
