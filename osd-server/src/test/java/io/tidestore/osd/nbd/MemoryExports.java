package io.tidestore.osd.nbd;

import io.tidestore.osd.image.BlockImage;
import io.tidestore.osd.image.ImageExports;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** Test exports: named memory images, "" meaning {@code defaultName}; lookups may be gated. */
final class MemoryExports implements ImageExports {
  final Map<String, MemoryImage> images = new LinkedHashMap<>();
  final String defaultName;

  MemoryExports(String defaultName, MemoryImage... images) {
    this.defaultName = defaultName;
    for (MemoryImage image : images) {
      this.images.put(image.name(), image);
    }
  }

  /** When set, lookups complete only when the test completes this future. */
  CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);

  @Override
  public CompletionStage<Optional<BlockImage>> open(String name) {
    return gate.thenApply(
        v -> Optional.ofNullable(images.get(name.isEmpty() ? defaultName : name)));
  }

  @Override
  public String canonicalName(String name) {
    return name.isEmpty() ? defaultName : name;
  }

  @Override
  public CompletionStage<List<String>> names() {
    return gate.thenApply(v -> List.copyOf(images.keySet()));
  }
}
