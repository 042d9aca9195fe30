package io.tidestore.cli;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** This machine's short hostname, the default host label of an OSD (as Ceph's CRUSH host). */
final class HostName {
  private HostName() {}

  static String local() {
    try {
      String name = Files.readString(Path.of("/proc/sys/kernel/hostname"), StandardCharsets.UTF_8);
      if (!name.isBlank()) {
        return shortName(name.trim());
      }
    } catch (IOException e) {
      // Not Linux: ask the resolver.
    }
    try {
      return shortName(InetAddress.getLocalHost().getHostName());
    } catch (IOException e) {
      return "localhost";
    }
  }

  private static String shortName(String name) {
    int dot = name.indexOf('.');
    return dot > 0 ? name.substring(0, dot) : name;
  }
}
