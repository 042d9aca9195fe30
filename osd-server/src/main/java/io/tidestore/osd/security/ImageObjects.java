package io.tidestore.osd.security;

import java.util.regex.Pattern;

/**
 * Which image an object belongs to, for grants narrowed with {@code image=NAME}: {@code
 * rbd_header.IMG} and {@code rbd_data.IMG.*} belong to image IMG (RBD's object names, which
 * osd.image writes); every other object belongs to no image, so an image-narrowed grant never
 * covers it. Matching allocates nothing: it runs on every object op of a narrowed client.
 */
public final class ImageObjects {
  static final String HEADER_PREFIX = "rbd_header.";
  static final String DATA_PREFIX = "rbd_data.";

  /** What an image name may be (osd.image's rule): no dots, so a data object's image is unique. */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_\\-]{1,64}");

  private ImageObjects() {}

  /** Whether {@code name} can be an image's name. */
  static boolean validImageName(String name) {
    return NAME.matcher(name).matches();
  }

  /** Whether the object {@code object} belongs to the image {@code image}. */
  public static boolean belongsTo(String object, String image) {
    if (object.startsWith(HEADER_PREFIX)) {
      return object.length() == HEADER_PREFIX.length() + image.length()
          && object.startsWith(image, HEADER_PREFIX.length());
    }
    if (object.startsWith(DATA_PREFIX)) {
      int start = DATA_PREFIX.length();
      int dot = object.indexOf('.', start);
      return dot - start == image.length() && object.startsWith(image, start);
    }
    return false;
  }

  /** The image {@code object} belongs to, or null; for messages (it allocates). */
  public static String imageOf(String object) {
    if (object.startsWith(HEADER_PREFIX) && object.length() > HEADER_PREFIX.length()) {
      return object.substring(HEADER_PREFIX.length());
    }
    if (object.startsWith(DATA_PREFIX)) {
      int dot = object.indexOf('.', DATA_PREFIX.length());
      return dot > DATA_PREFIX.length() ? object.substring(DATA_PREFIX.length(), dot) : null;
    }
    return null;
  }
}
