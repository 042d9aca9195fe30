package io.tidestore.osd.reactor;

/**
 * Work to run once per event-loop pass, after the pass's I/O events and tasks and before the loop
 * may block again: the store's seam for "one journal submission per pass". Called only on the
 * reactor's own thread.
 */
@FunctionalInterface
public interface PassHook {
  /** Runs at the end of a pass. An exception is logged and the loop continues. */
  void endOfPass();
}
