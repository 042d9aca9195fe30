package io.tidestore.store.io;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;

/**
 * A completion with a bug, as a caller's broken callback would have: it records every delivery (in
 * a {@link Recorder}, and their order), and its first {@code throwing} deliveries then throw an
 * IllegalStateException naming the operation's tag ({@link #message}).
 */
final class ThrowingCompletion implements IoCompletion {
  final Recorder recorder = new Recorder();

  /** Tags in the order they were delivered. */
  final List<Long> order = new ArrayList<>();

  private final int throwing;

  ThrowingCompletion(int throwing) {
    this.throwing = throwing;
  }

  static String message(long tag) {
    return "bug in the completion of operation " + tag;
  }

  @Override
  public void completed(long tag, int result) {
    recorder.completed(tag, result);
    delivered(tag);
  }

  @Override
  public void failed(long tag, IoOpException error) {
    recorder.failed(tag, error);
    delivered(tag);
  }

  /**
   * Checks that operations 0 to {@code ops - 1} were each delivered once, failed with {@code
   * errno}, and that {@code thrown}, what the delivering call threw, is the first delivery's
   * throwable with the second's suppressed in it: so it came out after every completion ran.
   */
  void assertAllFailedThenThrown(int ops, int errno, Throwable thrown) {
    assertEquals(ops, recorder.deliveries, "every completion ran, once");
    for (int i = 0; i < ops; i++) {
      assertEquals(errno, recorder.error(i).errno(), "op " + i);
    }
    assertEquals(message(order.get(0)), thrown.getMessage());
    assertEquals(1, thrown.getSuppressed().length);
    assertEquals(message(order.get(1)), thrown.getSuppressed()[0].getMessage());
  }

  private void delivered(long tag) {
    order.add(tag);
    if (order.size() <= throwing) {
      throw new IllegalStateException(message(tag));
    }
  }
}
