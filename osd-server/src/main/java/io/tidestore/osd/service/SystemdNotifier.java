package io.tidestore.osd.service;

import java.io.IOException;
import java.util.logging.Logger;

/** The sd_notify messages ({@code READY=1}, {@code STOPPING=1}, {@code STATUS=}) over a sender. */
final class SystemdNotifier implements ServiceNotifier {
  private static final Logger LOG = Logger.getLogger(SystemdNotifier.class.getName());

  private final NotifySender sender;

  SystemdNotifier(NotifySender sender) {
    this.sender = sender;
  }

  @Override
  public void ready(String status) {
    // One datagram: systemd reads each as a whole, newline-separated assignments.
    send("READY=1\nSTATUS=" + status.replace('\n', ' '));
  }

  @Override
  public void stopping() {
    send("STOPPING=1");
  }

  private void send(String message) {
    try {
      sender.send(message);
      LOG.fine(() -> "told the service manager at " + sender.target() + ": " + message);
    } catch (IOException e) {
      LOG.warning(
          "cannot notify the service manager at NOTIFY_SOCKET="
              + sender.target()
              + " ("
              + message.lines().findFirst().orElse("")
              + "): "
              + e.getMessage());
    }
  }
}
