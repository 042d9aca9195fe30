package io.tidestore.osd.service;

import io.tidestore.store.nativeio.Libc;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/** Chooses the notifier for a {@code $NOTIFY_SOCKET} value: native, a logging fallback, or none. */
final class Notifiers {
  private static final Logger LOG = Logger.getLogger(Notifiers.class.getName());

  /** For a process no service manager waits on: nothing to tell. */
  static final ServiceNotifier NONE =
      new ServiceNotifier() {
        @Override
        public void ready(String status) {}

        @Override
        public void stopping() {}
      };

  private Notifiers() {}

  static ServiceNotifier forSocket(String notifySocket) {
    return forSocket(notifySocket, Libc.get(), Libc.unavailableReason().orElse(""));
  }

  static ServiceNotifier forSocket(String notifySocket, Optional<Libc> libc, String whyNoLibc) {
    if (notifySocket == null || notifySocket.isEmpty()) {
      return NONE;
    }
    NotifyAddress address;
    try {
      address = NotifyAddress.parse(notifySocket);
    } catch (IllegalArgumentException e) {
      return new UnavailableNotifier(e.getMessage());
    }
    if (libc.isEmpty()) {
      return new UnavailableNotifier(whyNoLibc);
    }
    try {
      return new SystemdNotifier(new NativeNotifySocket(libc.get(), address));
    } catch (RuntimeException | LinkageError e) {
      LOG.log(Level.FINE, "socket/sendto not bound", e);
      return new UnavailableNotifier(
          "socket/sendto cannot be called through java.lang.foreign: " + e);
    }
  }
}
