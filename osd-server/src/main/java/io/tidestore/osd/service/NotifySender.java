package io.tidestore.osd.service;

import java.io.IOException;

/** Sends one sd_notify message as one datagram; the seam between the protocol and the syscalls. */
interface NotifySender {
  void send(String message) throws IOException;

  /** Where the messages go, for log lines. */
  String target();
}
