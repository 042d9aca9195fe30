package io.tidestore.store.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/** Collects completions by tag, on the owner thread, and waits for them with a deadline. */
public final class Recorder implements IoCompletion {
  public final Map<Long, Integer> results = new HashMap<>();
  public final Map<Long, IoOpException> errors = new HashMap<>();
  public int deliveries;

  @Override
  public void completed(long tag, int result) {
    deliveries++;
    if (results.put(tag, result) != null || errors.containsKey(tag)) {
      fail("tag " + tag + " completed twice");
    }
  }

  @Override
  public void failed(long tag, IoOpException error) {
    deliveries++;
    if (errors.put(tag, error) != null || results.containsKey(tag)) {
      fail("tag " + tag + " completed twice");
    }
  }

  /** Submits and awaits until {@code count} completions arrived, failing after 20 s. */
  public void awaitDeliveries(IoQueue queue, int count) throws IOException {
    queue.submit();
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (deliveries < count) {
      if (System.nanoTime() - deadline > 0) {
        fail("only " + deliveries + " of " + count + " completions after 20 s");
      }
      queue.await(100_000_000L);
    }
    assertEquals(count, deliveries, "completions delivered");
  }

  public int result(long tag) {
    IoOpException error = errors.get(tag);
    if (error != null) {
      throw new AssertionError("tag " + tag + " failed", error);
    }
    Integer r = results.get(tag);
    if (r == null) {
      throw new AssertionError("tag " + tag + " has not completed");
    }
    return r;
  }

  public IoOpException error(long tag) {
    IoOpException e = errors.get(tag);
    if (e == null) {
      throw new AssertionError("tag " + tag + " did not fail; result " + results.get(tag));
    }
    return e;
  }
}
