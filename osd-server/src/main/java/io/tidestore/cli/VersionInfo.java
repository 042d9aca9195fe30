package io.tidestore.cli;

import io.tidestore.osd.BuildInfo;
import picocli.CommandLine.IVersionProvider;

/** What every command's {@code --version} prints: {@link BuildInfo}'s version and JDK. */
final class VersionInfo implements IVersionProvider {
  @Override
  public String[] getVersion() {
    return new String[] {"tidestore " + BuildInfo.version(), "JDK " + BuildInfo.jdk()};
  }
}
