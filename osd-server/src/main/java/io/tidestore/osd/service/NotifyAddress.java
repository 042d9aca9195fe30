package io.tidestore.osd.service;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * {@code $NOTIFY_SOCKET} as a {@code sockaddr_un}: a path, or with a leading '@' a name in the
 * abstract namespace (whose first byte of {@code sun_path} is NUL and whose length counts no
 * trailing NUL), as sd_notify(3) reads it.
 *
 * @param sunPath the bytes of {@code sun_path} that the address length covers
 */
record NotifyAddress(String text, byte[] sunPath) {
  /** {@code sizeof(sun_path)} on Linux. */
  static final int SUN_PATH_BYTES = 108;

  static NotifyAddress parse(String text) {
    byte[] name = text.getBytes(StandardCharsets.UTF_8);
    byte[] sunPath;
    if (text.startsWith("@")) {
      sunPath = name.clone();
      sunPath[0] = 0; // '@' stands for the abstract namespace's leading NUL
    } else if (text.startsWith("/")) {
      sunPath = Arrays.copyOf(name, name.length + 1); // NUL-terminated path
    } else {
      throw new IllegalArgumentException(
          "NOTIFY_SOCKET=" + text + " is neither a path nor an abstract name ('@...')");
    }
    if (sunPath.length > SUN_PATH_BYTES) {
      throw new IllegalArgumentException(
          "NOTIFY_SOCKET=" + text + " is longer than a sockaddr_un holds (107 bytes)");
    }
    return new NotifyAddress(text, sunPath);
  }

  /** {@code socklen_t} for sendto: the family's two bytes and the used part of the path. */
  int socklen() {
    return 2 + sunPath.length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof NotifyAddress other
        && text.equals(other.text)
        && Arrays.equals(sunPath, other.sunPath);
  }

  @Override
  public int hashCode() {
    return text.hashCode();
  }

  @Override
  public String toString() {
    return text;
  }
}
