package io.tidestore.osd.classic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.owner.Owner;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The sharded op queue's ordering and locking: ops of one PG run one at a time under the PG lock
 * and in the order they were enqueued, whichever worker takes them; ops of other PGs do not wait
 * behind them.
 */
class OpShardTest {
  private static final int PGS = 3;
  private static final int OPS_PER_PG = 20_000;

  private final List<OpShard> started = new ArrayList<>();

  @AfterEach
  void stop() {
    started.forEach(OpShard::stop);
  }

  private OpShard start(int index, int threads) {
    OpShard shard = new OpShard(index, threads);
    shard.start();
    started.add(shard);
    return shard;
  }

  @Test
  void opsOfOnePgRunInArrivalOrderUnderItsLockWhicheverWorkerTakesThem() throws Exception {
    OpShard shard = start(0, 4);
    PlacementGroup[] pgs = new PlacementGroup[PGS];
    int[] next = new int[PGS]; // guarded by each PG's lock: the next sequence number expected
    AtomicInteger outOfOrder = new AtomicInteger();
    AtomicInteger unlocked = new AtomicInteger();
    Set<String> workers = ConcurrentHashMap.newKeySet();
    CountDownLatch done = new CountDownLatch(PGS * OPS_PER_PG);
    for (int p = 0; p < PGS; p++) {
      pgs[p] = new PlacementGroup(p, shard);
    }
    // One producer per PG, as one connection's ops of one object arrive in order, all at once.
    List<Thread> producers = new ArrayList<>();
    for (int p = 0; p < PGS; p++) {
      int pg = p;
      Owner owner = pgs[pg].owner();
      producers.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    for (int i = 0; i < OPS_PER_PG; i++) {
                      int seq = i;
                      pgs[pg]
                          .executor()
                          .execute(
                              () -> {
                                if (!owner.isCurrent() || !pgs[pg].executor().inEventLoop()) {
                                  unlocked.incrementAndGet();
                                }
                                if (next[pg] != seq) {
                                  outOfOrder.incrementAndGet();
                                }
                                next[pg] = seq + 1;
                                workers.add(Thread.currentThread().getName());
                                done.countDown();
                              });
                    }
                  }));
    }
    for (Thread producer : producers) {
      producer.join();
    }
    assertTrue(done.await(60, TimeUnit.SECONDS), "ops still queued: " + done.getCount());
    assertEquals(0, outOfOrder.get(), "ops of one PG ran out of their arrival order");
    assertEquals(0, unlocked.get(), "an op ran without its PG lock");
    for (int p = 0; p < PGS; p++) {
      pgs[p].lock().lock();
      try {
        assertEquals(OPS_PER_PG, next[p]);
      } finally {
        pgs[p].lock().unlock();
      }
    }
    assertTrue(workers.size() > 1, "one worker took every op: " + workers);
    assertTrue(workers.stream().allMatch(n -> n.startsWith("osd-op-0-")), workers.toString());
  }

  @Test
  void anOpOfAnotherPgRunsOnTheOtherWorkerWhileOnePgIsBusy() throws Exception {
    OpShard shard = start(1, 2);
    PlacementGroup busy = new PlacementGroup(0, shard);
    PlacementGroup other = new PlacementGroup(1, shard);
    CountDownLatch firstStarted = new CountDownLatch(1);
    CountDownLatch otherRan = new CountDownLatch(1);
    CountDownLatch secondRan = new CountDownLatch(1);
    AtomicInteger firstDone = new AtomicInteger();
    AtomicInteger secondSawFirstDone = new AtomicInteger();
    // The busy PG's first op holds its worker until the other PG's op ran: that only happens if
    // the queue's second worker serves the other PG meanwhile.
    busy.executor()
        .execute(
            () -> {
              firstStarted.countDown();
              try {
                otherRan.await(30, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              firstDone.set(1);
            });
    assertTrue(firstStarted.await(30, TimeUnit.SECONDS));
    other.executor().execute(otherRan::countDown);
    assertTrue(otherRan.await(30, TimeUnit.SECONDS), "the other PG waited behind the busy one");
    // The busy PG's next op runs after its first, whichever worker takes it.
    busy.executor()
        .execute(
            () -> {
              secondSawFirstDone.set(firstDone.get());
              secondRan.countDown();
            });
    assertTrue(secondRan.await(30, TimeUnit.SECONDS));
    assertEquals(1, secondSawFirstDone.get(), "a PG's second op overtook its first");
    assertFalse(busy.executor().inEventLoop(), "the test thread holds no PG lock");
  }

  @Test
  void aStoppedShardRefusesOpsAndFinishesTheQueuedOnes() throws Exception {
    OpShard shard = start(2, 1);
    PlacementGroup pg = new PlacementGroup(0, shard);
    CountDownLatch ran = new CountDownLatch(100);
    for (int i = 0; i < 100; i++) {
      pg.executor().execute(ran::countDown);
    }
    shard.stop();
    assertEquals(0, ran.getCount(), "queued ops were dropped at stop");
    assertThrows(RejectedExecutionException.class, () -> pg.executor().execute(() -> {}));
  }
}
