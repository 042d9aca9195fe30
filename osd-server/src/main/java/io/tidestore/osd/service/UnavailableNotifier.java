package io.tidestore.osd.service;

import java.util.logging.Logger;

/**
 * The fallback when {@code $NOTIFY_SOCKET} is set but cannot be used: it logs why, once, so an
 * operator whose {@code Type=notify} unit times out at start finds the reason in the journal.
 */
final class UnavailableNotifier implements ServiceNotifier {
  private static final Logger LOG = Logger.getLogger(UnavailableNotifier.class.getName());

  private final String reason;
  private boolean logged;

  UnavailableNotifier(String reason) {
    this.reason = reason;
  }

  @Override
  public void ready(String status) {
    logOnce("READY=1");
  }

  @Override
  public void stopping() {
    logOnce("STOPPING=1");
  }

  private synchronized void logOnce(String message) {
    if (!logged) {
      logged = true;
      LOG.warning(
          "cannot tell the service manager "
              + message
              + " (NOTIFY_SOCKET is set; a Type=notify unit will time out): "
              + reason);
    }
  }
}
