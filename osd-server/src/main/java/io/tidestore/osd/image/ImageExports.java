package io.tidestore.osd.image;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * The images a block gateway (NBD) may export, by name. Called on the connection's reactor thread
 * and asynchronous, because finding an image means reading its header object from the store, which
 * may be owned by this very reactor: blocking here would deadlock. The stages may complete on any
 * thread; the handshake stops reading the connection until they do.
 */
public interface ImageExports {
  /** The image called {@code name}; an empty name means the configured default image. */
  CompletionStage<Optional<BlockImage>> open(String name);

  /**
   * The image {@code name} means (the default image for the empty name), so that access can be
   * checked before anything is looked up. Any thread.
   */
  default String canonicalName(String name) {
    return name;
  }

  /** Names for NBD_OPT_LIST. */
  CompletionStage<List<String>> names();
}
