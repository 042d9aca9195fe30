package io.tidestore.osd.pg;

import io.tidestore.cluster.pghistory.PgActivation;
import io.tidestore.cluster.placement.PgId;
import java.util.concurrent.CompletableFuture;

/**
 * The monitors' record of each PG's newest activation (docs/cluster.md "PG history"): a primary
 * reads it before it peers and writes it before it serves. Futures complete on any thread.
 */
public interface PgHistory {
  /** The newest activation recorded for {@code pg}; completes with null when none is. */
  CompletableFuture<PgActivation> lookup(PgId pg);

  /**
   * Records that this primary activates {@code pg} as {@code activation} says; completes with false
   * when the monitors refused it (a later activation is recorded).
   */
  CompletableFuture<Boolean> record(PgId pg, PgActivation activation);
}
