package io.tidestore.osd.nbd;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Test exports: named memory images, "" meaning {@code defaultName}. */
final class MemoryExports implements ImageExports {
  final Map<String, MemoryImage> images = new LinkedHashMap<>();
  final String defaultName;

  MemoryExports(String defaultName, MemoryImage... images) {
    this.defaultName = defaultName;
    for (MemoryImage image : images) {
      this.images.put(image.name(), image);
    }
  }

  @Override
  public Optional<BlockImage> open(String name) {
    return Optional.ofNullable(images.get(name.isEmpty() ? defaultName : name));
  }

  @Override
  public List<String> names() {
    return List.copyOf(images.keySet());
  }
}
