package io.tidestore.bench.io;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Completed durable writes, reported by JMH as writes per second next to the invocation rate, so
 * io_uring (many writes per invocation) and FileChannel (one per invocation) compare directly.
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.OPERATIONS)
public class WriteCounters {
  public long writes;

  @Setup(Level.Iteration)
  public void reset() {
    writes = 0;
  }
}
