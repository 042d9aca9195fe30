package io.tidestore.bench.load;

import io.tidestore.osd.image.ImageHeaders;
import io.tidestore.osd.image.ImageLayout;

/**
 * One image as the load generator sees it: its size and the names of its data objects, built once
 * up front so that issuing an op never builds a string.
 *
 * @param name the image's name
 * @param size the image's size in bytes
 * @param layout how bytes map onto objects
 * @param objectNames the data object of every object number
 */
record ImageTarget(String name, long size, ImageLayout layout, String[] objectNames) {
  /** Beyond this many objects (4 TiB of 4 MiB objects) the name table is not worth holding. */
  static final int MAX_OBJECTS = 1 << 20;

  static ImageTarget of(String name, long size) {
    ImageLayout layout = ImageHeaders.layout(name);
    long count = layout.objectCount(size);
    if (count > MAX_OBJECTS) {
      throw new IllegalArgumentException(
          "image "
              + name
              + " spans "
              + count
              + " objects; tidestore bench handles at most "
              + MAX_OBJECTS);
    }
    String[] names = new String[(int) count];
    for (int i = 0; i < names.length; i++) {
      names[i] = layout.dataObjectName(i);
    }
    return new ImageTarget(name, size, layout, names);
  }
}
