package io.tidestore.store;

import java.io.IOException;
import java.nio.file.Path;

/** Another live process owns the data directory. */
public final class DataDirLockedException extends IOException {
  private static final long serialVersionUID = 1L;

  public DataDirLockedException(Path dataDir, String holderPid) {
    super(
        "data directory "
            + dataDir
            + " is in use by another Tidestore process"
            + (holderPid.isEmpty() ? "" : " (pid " + holderPid + ")")
            + "; stop it first, or choose another --data directory");
  }
}
