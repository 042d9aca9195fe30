package io.tidestore.osd.shard;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.osd.cpu.CpuAllocator;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.ops.ObjectOpsException.Code;
import io.tidestore.osd.reactor.Reactors;
import io.tidestore.osd.reactor.Transport;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class HandoffTest {
  private Reactors reactors;

  @BeforeEach
  void start() throws Exception {
    reactors =
        Reactors.start(
            Transport.EPOLL,
            new int[] {CpuAllocator.UNPINNED, CpuAllocator.UNPINNED},
            Optional.empty());
  }

  @AfterEach
  void stop() {
    reactors.close();
  }

  private record Threads(String work, String continuation) {}

  @Test
  void opRunsOnTheOwnerAndItsResultComesBackToTheCaller() throws Exception {
    var caller = reactors.get(0).loop();
    var owner = reactors.get(1).loop();
    CompletableFuture<Threads> seen = new CompletableFuture<>();
    caller.execute(
        () ->
            Handoff.submitTo(
                    owner,
                    caller,
                    () -> CompletableFuture.completedFuture(Thread.currentThread().getName()))
                .whenComplete(
                    (work, e) ->
                        seen.complete(new Threads(work, Thread.currentThread().getName()))));
    assertEquals(new Threads("reactor-1", "reactor-0"), seen.get(10, TimeUnit.SECONDS));
  }

  @Test
  void noHopWhenTheCallerOwnsTheShard() throws Exception {
    var loop = reactors.get(0).loop();
    Boolean inline =
        loop.submit(
                () -> {
                  long before = Thread.currentThread().threadId();
                  var stage =
                      Handoff.submitTo(
                          loop,
                          loop,
                          () ->
                              CompletableFuture.completedFuture(
                                  Thread.currentThread().threadId() == before));
                  return stage.toCompletableFuture().getNow(false);
                })
            .get(10, TimeUnit.SECONDS);
    assertTrue(inline, "work did not run inline on the owning loop");
  }

  @Test
  void failuresAndAStoppedOwnerFailTheOp() throws Exception {
    var caller = reactors.get(0).loop();
    var owner = reactors.get(1).loop();
    var thrown =
        Handoff.<String>submitTo(
                owner,
                caller,
                () -> {
                  throw new ObjectOpsException(Code.NOT_FOUND, "x");
                })
            .toCompletableFuture();
    var e = assertThrows(ExecutionException.class, () -> thrown.get(10, TimeUnit.SECONDS));
    assertEquals(Code.NOT_FOUND, assertInstanceOf(ObjectOpsException.class, e.getCause()).code());

    owner.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
    var stopped =
        Handoff.submitTo(owner, caller, () -> CompletableFuture.completedFuture(1))
            .toCompletableFuture();
    var s = assertThrows(ExecutionException.class, () -> stopped.get(10, TimeUnit.SECONDS));
    assertEquals(Code.CLOSED, assertInstanceOf(ObjectOpsException.class, s.getCause()).code());
  }

  @Test
  void shardsAreSpreadRoundRobinWithReactorsClampedToShards() {
    assertArrayEquals(new int[] {0, 1, 0, 1, 0}, ShardAssignment.roundRobin(5, 2));
    assertArrayEquals(new int[] {0, 1}, ShardAssignment.roundRobin(2, 8));
    assertEquals(2, ShardAssignment.effectiveReactors(8, 2));
    assertThrows(IllegalArgumentException.class, () -> ShardAssignment.roundRobin(0, 1));
  }
}
