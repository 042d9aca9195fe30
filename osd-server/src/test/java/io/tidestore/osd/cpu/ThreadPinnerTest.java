package io.tidestore.osd.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.BitSet;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Pins a real thread and reads its mask back from the kernel. */
class ThreadPinnerTest {
  @Test
  void pinnedThreadShowsOneCpuInProc() throws Exception {
    ThreadPinner pinner = Affinity.pinner().orElseThrow();
    BitSet allowed = pinner.processCpus();
    assertEquals(Affinity.allowedListFromStatus(Path.of("/proc/self/status")), allowed);
    int cpu = allowed.length() - 1;
    AtomicReference<String> procList = new AtomicReference<>();
    AtomicReference<BitSet> syscallMask = new AtomicReference<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread thread =
        new Thread(
            () -> {
              try {
                pinner.pinCurrentThread(cpu);
                int tid = pinner.currentThreadId();
                BitSet read =
                    Affinity.allowedListFromStatus(Path.of("/proc/self/task/" + tid + "/status"));
                procList.set(CpuList.format(read));
                syscallMask.set(pinner.currentThreadCpus());
              } catch (Throwable t) {
                failure.set(t);
              }
            },
            "pin-test");
    thread.start();
    thread.join();
    if (failure.get() != null) {
      throw new AssertionError(failure.get());
    }
    assertEquals(Integer.toString(cpu), procList.get());
    assertEquals(CpuList.parse(Integer.toString(cpu)), syscallMask.get());
    // The process mask is untouched by pinning one thread.
    assertEquals(allowed, pinner.processCpus());
  }

  @Test
  void pinningToAForbiddenCpuFailsWithErrno() throws Exception {
    ThreadPinner pinner = Affinity.pinner().orElseThrow();
    int offline = CpuList.MAX_CPU; // no machine we run on has 8192 CPUs
    var e =
        org.junit.jupiter.api.Assertions.assertThrows(
            java.io.IOException.class, () -> pinner.pinCurrentThread(offline));
    assertTrue(e.getMessage().contains("errno 22"), e.getMessage());
  }
}
