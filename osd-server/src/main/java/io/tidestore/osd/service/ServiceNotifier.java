package io.tidestore.osd.service;

/**
 * What the daemon tells its service manager. Sending never throws and never stops the daemon: a
 * failure is logged, since a daemon that serves is more use than one that exits because systemd
 * could not be told.
 */
public interface ServiceNotifier {
  /** The daemon serves now; {@code status} is a one-line description for {@code systemctl}. */
  void ready(String status);

  /** The daemon has begun to stop (closing listeners, flushing). */
  void stopping();

  /**
   * The notifier for this process: systemd's when {@code $NOTIFY_SOCKET} is set (the service runs
   * under {@code Type=notify}), otherwise one that does nothing.
   */
  static ServiceNotifier fromEnvironment() {
    return Notifiers.forSocket(System.getenv("NOTIFY_SOCKET"));
  }
}
