package io.tidestore.osd.protocol;

import java.time.Duration;

/**
 * Per-connection limits of the object protocol server.
 *
 * @param maxInFlight requests in flight per connection before the server stops reading from it
 * @param partialFrameTimeout how long one frame may take to arrive before the connection is closed
 * @param helloTimeout how long a new connection may take to send HELLO
 */
public record ServerLimits(int maxInFlight, Duration partialFrameTimeout, Duration helloTimeout) {
  public static final ServerLimits DEFAULT =
      new ServerLimits(256, Duration.ofSeconds(30), Duration.ofSeconds(10));

  public ServerLimits {
    if (maxInFlight < 1) {
      throw new IllegalArgumentException("maxInFlight must be positive");
    }
  }
}
