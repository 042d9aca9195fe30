package io.tidestore.osd.reactor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.epoll.Native;
import io.netty.channel.unix.FileDescriptor;
import io.tidestore.osd.cpu.CpuAllocator;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A real eventfd, signalled from another thread, wakes a blocked reactor. */
class CompletionFdWatchTest {
  @Test
  void signalsFromAnotherThreadRunTheCallbackOnTheReactor() throws Exception {
    FileDescriptor eventFd = Native.newEventFd();
    try (Reactors reactors =
        Reactors.start(Transport.EPOLL, new int[] {CpuAllocator.UNPINNED}, Optional.empty())) {
      BlockingQueue<String> wakeups = new ArrayBlockingQueue<>(16);
      CompletionFdWatch watch =
          CompletionFdWatch.watch(
                  reactors.get(0),
                  eventFd.intValue(),
                  () -> wakeups.add(Thread.currentThread().getName()))
              .get(10, TimeUnit.SECONDS);
      for (int i = 0; i < 3; i++) {
        Native.eventFdWrite(eventFd.intValue(), 1);
        assertEquals("reactor-0", wakeups.poll(10, TimeUnit.SECONDS), "wakeup " + i);
      }
      watch.close();
      Native.eventFdWrite(eventFd.intValue(), 1);
      // Nothing may arrive after close: a pass of the loop that would have seen it has run.
      reactors.get(0).loop().submit(() -> {}).get(10, TimeUnit.SECONDS);
      assertTrue(wakeups.isEmpty());
      assertTrue(eventFd.isOpen(), "the watch closed a fd it does not own");
    } finally {
      eventFd.close();
    }
  }

  @Test
  void ioUringTransportIsRefusedClearly() throws Exception {
    assumeTrue(Transport.IO_URING.unavailabilityCause() == null);
    FileDescriptor eventFd = Native.newEventFd();
    try (Reactors reactors =
        Reactors.start(Transport.IO_URING, new int[] {CpuAllocator.UNPINNED}, Optional.empty())) {
      var future = CompletionFdWatch.watch(reactors.get(0), eventFd.intValue(), () -> {});
      ExecutionException e =
          org.junit.jupiter.api.Assertions.assertThrows(
              ExecutionException.class, () -> future.get(10, TimeUnit.SECONDS));
      assertTrue(e.getCause().getMessage().contains("epoll"), e.getCause().getMessage());
      assertFalse(future.isSuccess());
    } finally {
      eventFd.close();
    }
  }
}
