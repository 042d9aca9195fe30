package io.tidestore.store.io;

/**
 * What a backend does when an {@link IoCompletion} throws while a batch of completions is being
 * delivered: the throw is a bug in the caller, but the other operations of the batch finished too,
 * and their callers wait for their completions (a lost one hangs its caller and leaks its slot). So
 * a backend delivers every completion of the batch, keeps the first throwable with the later ones
 * added to it as suppressed ({@link #add}), and rethrows it once the batch is delivered ({@link
 * #rethrow}), so the owner's event loop still sees and logs the bug.
 *
 * <p>Nothing is allocated unless a completion throws.
 */
public final class CompletionFailures {
  private CompletionFailures() {}

  /**
   * The failure of a batch so far ({@code first}, null when none yet) after {@code thrown}: the
   * first throwable, with every later one suppressed in it.
   */
  @SuppressWarnings("ReferenceEquality") // identity: a throwable cannot suppress itself
  public static Throwable add(Throwable first, Throwable thrown) {
    if (first == null) {
      return thrown;
    }
    // Completions may throw one shared instance more than once.
    if (thrown != first) {
      first.addSuppressed(thrown);
    }
    return first;
  }

  /**
   * Throws {@code failure} (from {@link #add}) once every completion of the batch was delivered; a
   * no-op when it is null. An IoCompletion declares no checked exception, so a checked one could
   * only come from a sneaky throw: it is wrapped rather than lost.
   */
  public static void rethrow(Throwable failure) {
    switch (failure) {
      case null -> {}
      case RuntimeException e -> throw e;
      case Error e -> throw e;
      default -> throw new IllegalStateException("an I/O completion threw", failure);
    }
  }
}
