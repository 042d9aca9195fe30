package io.tidestore.osd.image;

import io.netty.buffer.ByteBuf;
import java.util.regex.Pattern;

/**
 * Where an image's metadata lives: the header object {@code rbd_header.<name>} (the image's name is
 * its id, see {@link ImageLayout}) with the xattr {@code size} (u64, big-endian bytes). Data
 * objects are {@code rbd_data.<name>.<016x>}. Shared by the daemon's catalog and {@link
 * ImageAdmin}.
 */
public final class ImageHeaders {
  /** Header object name prefix. */
  public static final String HEADER_PREFIX = "rbd_header.";

  /** The xattr holding the image size. */
  public static final String SIZE_XATTR = "size";

  /** Image names: what an RBD image id may hold here (no dots, printable, 1..64 bytes). */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_\\-]{1,64}");

  private ImageHeaders() {}

  /** True for a legal image name. */
  public static boolean validName(String name) {
    return NAME.matcher(name).matches();
  }

  public static ImageLayout layout(String name) {
    return new ImageLayout(name, ImageLayout.DEFAULT_OBJECT_SIZE);
  }

  /** The prefix of every data object of image {@code name}: {@code rbd_data.NAME.}. */
  public static String dataPrefix(String name) {
    return "rbd_data." + name + ".";
  }

  public static String headerObject(String name) {
    return HEADER_PREFIX + name;
  }

  /** Decodes the size xattr, or -1 when it is not 8 bytes or above 2^63 - 1 (malformed). */
  public static long size(ByteBuf value) {
    long size = value.readableBytes() == 8 ? value.getLong(value.readerIndex()) : -1;
    return Math.max(size, -1);
  }
}
