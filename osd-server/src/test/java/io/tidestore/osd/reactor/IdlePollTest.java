package io.tidestore.osd.reactor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tidestore.osd.cpu.CpuAllocator;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.DoublePredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@code --reactor-idle-poll-us} and the last second's utilization, on real reactors. */
class IdlePollTest {
  private static final int[] ONE_UNPINNED = {CpuAllocator.UNPINNED};

  private static Reactors start(Transport transport, IdlePoll poll) throws Exception {
    assumeTrue(
        transport.unavailabilityCause() == null,
        () -> transport.label() + " unavailable: " + transport.unavailabilityCause());
    return Reactors.start(transport, ONE_UNPINNED, Optional.empty(), poll);
  }

  @Test
  void parsesMicrosecondsAndAlways() {
    assertEquals(IdlePoll.NONE, IdlePoll.parse("0"));
    assertEquals(50_000, IdlePoll.parse("50").nanos());
    assertTrue(IdlePoll.parse("always").always());
    assertEquals("always", IdlePoll.ALWAYS.describe());
    for (String bad : new String[] {"-1", "x", "", "1000001", "50us"}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> IdlePoll.parse(bad));
      assertTrue(e.getMessage().contains("--reactor-idle-poll-us"), e.getMessage());
    }
  }

  /** Polling spins the loop, yet a loop that only polls is idle; one that sleeps does not spin. */
  @ParameterizedTest
  @EnumSource(Transport.class)
  void pollingWithNothingToDoSpinsAndCountsAsIdle(Transport transport) throws Exception {
    long pollingPasses;
    try (Reactors polling = start(transport, IdlePoll.ALWAYS)) {
      Reactor reactor = polling.get(0);
      long before = reactor.stats().passesAcquire();
      awaitUtilization(reactor, 1100, u -> u < 0.1, "a polling reactor with no work is idle");
      pollingPasses = reactor.stats().passesAcquire() - before;
    }
    long sleepingPasses;
    try (Reactors sleeping = start(transport, IdlePoll.NONE)) {
      Reactor reactor = sleeping.get(0);
      long before = reactor.stats().passesAcquire();
      // The same window as the polling half: a closed utilization second, here all asleep.
      awaitUtilization(reactor, 1100, u -> u < 0.01, "a sleeping reactor with no work is idle");
      sleepingPasses = reactor.stats().passesAcquire() - before;
    }
    assertTrue(pollingPasses > 10_000, "polling passes in over a second: " + pollingPasses);
    assertTrue(sleepingPasses < 100, "sleeping passes in over a second: " + sleepingPasses);
  }

  /** A second of work shows as busy; a reactor asleep for over a second shows 0. */
  @ParameterizedTest
  @EnumSource(Transport.class)
  void utilizationIsTheLastSecondsBusyFraction(Transport transport) throws Exception {
    try (Reactors reactors = start(transport, IdlePoll.NONE)) {
      Reactor reactor = reactors.get(0);
      reactor
          .loop()
          .submit(
              () -> {
                long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
                while (System.nanoTime() < until) {
                  Thread.onSpinWait();
                }
              })
          .get();
      awaitUtilization(reactor, 0, u -> u > 0.6, "right after 1.5 s of work");
      // io_uring's loop wakes now and then, so an idle second may close with a few µs busy.
      awaitUtilization(reactor, 1100, u -> u < 0.01, "asleep for over a second");
    }
  }

  /** Waits at least {@code minMillis}, then until {@code ok} holds (10 s at most). */
  private static void awaitUtilization(
      Reactor reactor, long minMillis, DoublePredicate ok, String what)
      throws InterruptedException {
    long start = System.nanoTime();
    long deadline = start + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(minMillis)
        || !ok.test(reactor.stats().utilization(System.nanoTime()))) {
      assertTrue(
          System.nanoTime() < deadline,
          what + ": utilization " + reactor.stats().utilization(System.nanoTime()));
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }
}
