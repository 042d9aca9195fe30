package io.tidestore.osd.nbd;

import java.util.List;
import java.util.Optional;

/** The images the NBD server may export, by name. Thread-safe: called from any reactor thread. */
public interface ImageExports {
  /** The image called {@code name}; an empty name means the configured default image. */
  Optional<BlockImage> open(String name);

  /** Names for NBD_OPT_LIST. */
  List<String> names();
}
