package io.tidestore.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.bench.result.ThreadCpuSampler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ThreadCpuSamplerTest {
  @TempDir Path proc;

  private void task(int tid, String comm, long utime, long stime) throws Exception {
    task(tid, comm, utime, stime, 0, 0);
  }

  private void task(int tid, String comm, long utime, long stime, long voluntary, long involuntary)
      throws Exception {
    Path dir = Files.createDirectories(proc.resolve("task").resolve(Integer.toString(tid)));
    Files.writeString(
        dir.resolve("status"),
        "Name:\t"
            + comm
            + "\nState:\tS (sleeping)\nvoluntary_ctxt_switches:\t"
            + voluntary
            + "\nnonvoluntary_ctxt_switches:\t"
            + involuntary
            + "\n");
    // proc(5) stat: pid (comm) state ppid ... utime(14) stime(15) ...
    StringBuilder stat = new StringBuilder(tid + " (" + comm + ") S 1");
    for (int field = 5; field <= 13; field++) {
      stat.append(" 0");
    }
    stat.append(' ').append(utime).append(' ').append(stime);
    for (int field = 16; field <= 52; field++) {
      stat.append(" 0");
    }
    Files.writeString(dir.resolve("stat"), stat.append('\n').toString());
  }

  @Test
  void cpuPerThreadNameIsTickDeltaOverElapsedTime() throws Exception {
    Files.writeString(proc.resolve("statm"), "1000 25600 0 0 0 0 0\n");
    task(10, "reactor-0", 100, 50);
    task(11, "reactor-1", 0, 0);
    task(12, "a (weird) name", 0, 0);
    ThreadCpuSampler sampler = new ThreadCpuSampler(proc, 100, 4096);
    assertTrue(sampler.sample(0.0));
    task(10, "reactor-0", 180, 70); // 100 ticks in 1 s = 100 % of a core
    task(11, "reactor-1", 30, 20); // 50 ticks = 50 %
    task(12, "a (weird) name", 5, 0);
    assertTrue(sampler.sample(1.0));
    var sample = sampler.samples().getFirst();
    assertEquals(100.0, sample.cpuByThread().get("reactor-0"), 1e-9);
    assertEquals(50.0, sample.cpuByThread().get("reactor-1"), 1e-9);
    assertEquals(5.0, sample.cpuByThread().get("a (weird) name"), 1e-9);
    assertEquals(155.0, sample.totalCpu(), 1e-9);
    assertEquals(100.0, sample.rssMiB(), 1e-9);

    var summary = sampler.summarize(0.5);
    assertEquals(155.0, summary.cpuPercent(), 1e-9);
    assertEquals(0, sampler.summarize(1.0).cpuPercent());
  }

  @Test
  void contextSwitchesAreSummedOverThreadsPerSecond() throws Exception {
    Files.writeString(proc.resolve("statm"), "1000 25600 0 0 0 0 0\n");
    task(10, "op-worker-0", 0, 0, 1000, 10);
    task(11, "op-worker-1", 0, 0, 500, 0);
    ThreadCpuSampler sampler = new ThreadCpuSampler(proc, 100, 4096);
    assertTrue(sampler.sample(0.0));
    task(10, "op-worker-0", 0, 0, 1800, 30); // +820
    task(11, "op-worker-1", 0, 0, 880, 0); // +380
    task(12, "finisher", 0, 0, 200, 0); // a thread born in the interval: all of its 200 count
    assertTrue(sampler.sample(2.0));
    assertEquals(700.0, sampler.samples().getFirst().contextSwitchesPerSecond(), 1e-9);
    assertEquals(700.0, sampler.summarize(0.5).contextSwitchesPerSecond(), 1e-9);
  }

  @Test
  void liveProcessShowsABusyThread() throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    Thread busy =
        Thread.ofPlatform()
            .name("busy-sampled")
            .start(
                () -> {
                  long x = 0;
                  while (!stop.get()) {
                    x += System.nanoTime() & 1;
                  }
                  if (x == 42) {
                    System.out.print("");
                  }
                });
    try {
      ThreadCpuSampler sampler = ThreadCpuSampler.forPid(ProcessHandle.current().pid());
      var threads = java.lang.management.ManagementFactory.getThreadMXBean();
      long before = threads.getThreadCpuTime(busy.threadId());
      long start = System.nanoTime();
      assertTrue(sampler.sample(0));
      // Wait until the busy thread has really run 200 ms of CPU (however loaded the machine is),
      // so the kernel's per-thread tick counters (USER_HZ = 100) have something to show.
      long deadline = start + 30_000_000_000L;
      while (threads.getThreadCpuTime(busy.threadId()) - before < 200_000_000L) {
        assertTrue(System.nanoTime() < deadline, "busy thread got no CPU in 30 s");
        Thread.onSpinWait();
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      long ranNanos = threads.getThreadCpuTime(busy.threadId()) - before;
      assertTrue(sampler.sample(seconds));
      var sample = sampler.samples().getFirst();
      double seenSeconds = sample.cpuByThread().getOrDefault("busy-sampled", 0.0) / 100 * seconds;
      // /proc counts whole ticks (10 ms): allow two ticks of rounding either way.
      assertEquals(ranNanos / 1e9, seenSeconds, 0.03, sample.toString());
      assertTrue(sample.rssMiB() > 1);
    } finally {
      stop.set(true);
      busy.join();
    }
  }

  @Test
  void goneProcessEndsSampling() throws Exception {
    assertFalse(new ThreadCpuSampler(proc.resolve("nope"), 100, 4096).sample(0));
  }
}
