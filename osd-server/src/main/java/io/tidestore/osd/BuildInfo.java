package io.tidestore.osd;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * Tidestore's version (from the build) and the JDK it runs on: what the daemon's banner and status
 * page report and the CLI's {@code --version} prints. Stateless.
 */
public final class BuildInfo {
  private BuildInfo() {}

  /** The project version stamped into the jar at build time. */
  public static String version() {
    try (InputStream in = BuildInfo.class.getResourceAsStream("/tidestore-version.properties")) {
      if (in == null) {
        return "unknown";
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version", "unknown");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The running JDK, as the banner and {@code version} print it. */
  public static String jdk() {
    return Runtime.version()
        + " ("
        + System.getProperty("java.vm.vendor")
        + ", "
        + System.getProperty("java.home")
        + ")";
  }
}
