package io.tidestore.osd.reactor;

/**
 * How long a reactor keeps polling for work after its last work before it blocks in the kernel
 * ({@code --reactor-idle-poll-us}): 0 blocks at once (Tidestore's default: an idle reactor costs no
 * CPU), {@link #ALWAYS} never blocks (Seastar's default, {@code --idle-poll-time-us} with {@code
 * --poll-mode}), which trades a whole core per reactor for the wake-up latency of a sleeping
 * thread. Polling with nothing to do counts as idle in {@code tidestore_reactor_utilization}, as in
 * Seastar's {@code reactor_utilization}.
 *
 * @param nanos the polling window after the last work; {@link Long#MAX_VALUE} for always
 */
public record IdlePoll(long nanos) {
  /** Block as soon as there is nothing to do. */
  public static final IdlePoll NONE = new IdlePoll(0);

  /** Never block: poll for as long as the reactor runs. */
  public static final IdlePoll ALWAYS = new IdlePoll(Long.MAX_VALUE);

  /** The longest finite window: beyond a second, {@code always} says what is meant. */
  static final long MAX_MICROS = 1_000_000;

  public IdlePoll {
    if (nanos < 0) {
      throw new IllegalArgumentException("idle poll window must be >= 0, got " + nanos + " ns");
    }
  }

  /**
   * {@code always}, or microseconds from 0 to {@value #MAX_MICROS}.
   *
   * @throws IllegalArgumentException naming the accepted forms
   */
  public static IdlePoll parse(String value) {
    String v = value.trim();
    if (v.equals("always")) {
      return ALWAYS;
    }
    long micros;
    try {
      micros = Long.parseLong(v);
    } catch (NumberFormatException e) {
      micros = -1;
    }
    if (micros < 0 || micros > MAX_MICROS) {
      throw new IllegalArgumentException(
          "--reactor-idle-poll-us takes microseconds from 0 to "
              + MAX_MICROS
              + " or 'always', got '"
              + value
              + "'");
    }
    return micros == 0 ? NONE : new IdlePoll(micros * 1000);
  }

  public boolean always() {
    return nanos == Long.MAX_VALUE;
  }

  /** As on the command line: {@code always} or the microseconds. */
  public String describe() {
    return always() ? "always" : Long.toString(nanos / 1000);
  }
}
