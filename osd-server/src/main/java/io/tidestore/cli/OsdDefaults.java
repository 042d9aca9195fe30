package io.tidestore.cli;

/** Default ports, shared by the daemon's options and the tools that reach it. */
final class OsdDefaults {
  /** The NBD port IANA assigned (nbd 10809/tcp). */
  static final int NBD_PORT = 10809;

  private OsdDefaults() {}
}
