package io.tidestore.osd.cpu;

import java.io.IOException;
import java.util.BitSet;

/**
 * Binds the calling thread to CPUs. Every method acts on the thread that calls it
 * (sched_setaffinity with pid 0), so implementations are stateless and safe from any thread.
 */
public interface ThreadPinner {
  /** Restricts the calling thread to {@code cpu}; throws with the errno when the kernel refuses. */
  void pinCurrentThread(int cpu) throws IOException;

  /** The calling thread's current affinity mask. */
  BitSet currentThreadCpus() throws IOException;

  /** The CPUs the process may use: the main thread's mask, before any pinning of ours. */
  BitSet processCpus() throws IOException;

  /** The calling thread's kernel thread id (the TID in /proc/self/task/TID). */
  int currentThreadId();
}
