package io.tidestore.osd.image;

/**
 * How an image's bytes map onto store objects, as RBD does without fancy striping (stripe unit =
 * object size, stripe count 1): byte {@code b} lives in object {@code b / objectSize} at offset
 * {@code b % objectSize}. Data objects are named like RBD's, {@code rbd_data.<id>.<object number as
 * 16 hex digits>}; the header object {@code rbd_header.<id>} holds the image's metadata. Immutable
 * and thread-safe.
 *
 * @param imageId the image's id (not its name, so a rename does not move data)
 * @param objectSize bytes per object, a power of two (4 MiB by default, RBD's order 22)
 */
public record ImageLayout(String imageId, int objectSize) {
  /** RBD's default object size, 4 MiB (order 22). */
  public static final int DEFAULT_OBJECT_SIZE = 4 << 20;

  public ImageLayout {
    if (objectSize <= 0 || Integer.bitCount(objectSize) != 1) {
      throw new IllegalArgumentException("object size must be a power of two: " + objectSize);
    }
    if (imageId.isEmpty() || !imageId.chars().allMatch(c -> c > ' ' && c < 0x7f && c != '.')) {
      throw new IllegalArgumentException(
          "image id must be printable ASCII without dots: " + imageId);
    }
  }

  /** The object holding {@code offset}. */
  public long objectNumber(long offset) {
    return offset >>> Integer.numberOfTrailingZeros(objectSize);
  }

  /** The offset of byte {@code offset} within its object. */
  public int offsetInObject(long offset) {
    return (int) (offset & (objectSize - 1));
  }

  /** {@code rbd_data.<id>.<016x object number>}. */
  public String dataObjectName(long objectNumber) {
    StringBuilder name = new StringBuilder(10 + imageId.length() + 17);
    name.append("rbd_data.").append(imageId).append('.');
    String hex = Long.toHexString(objectNumber);
    name.repeat('0', 16 - hex.length());
    return name.append(hex).toString();
  }

  /** {@code rbd_header.<id>}. */
  public String headerObjectName() {
    return "rbd_header." + imageId;
  }

  /** Number of objects an image of {@code size} bytes spans. */
  public long objectCount(long size) {
    return size == 0 ? 0 : objectNumber(size - 1) + 1;
  }

  /** Receives the per-object pieces of a request, in ascending offset order. */
  @FunctionalInterface
  public interface ExtentVisitor {
    /**
     * Receives one piece.
     *
     * @param objectNumber the object
     * @param objectOffset where the piece starts in the object
     * @param length the piece's length (never crosses an object boundary)
     * @param requestOffset where the piece starts within the request's buffer
     */
    void extent(long objectNumber, int objectOffset, int length, long requestOffset);
  }

  /** Splits {@code [offset, offset + length)} at object boundaries; returns the piece count. */
  public int forEachExtent(long offset, long length, ExtentVisitor visitor) {
    if (offset < 0 || length < 0 || offset + length < offset) {
      throw new IllegalArgumentException("bad range " + offset + "+" + length);
    }
    int pieces = 0;
    long done = 0;
    while (done < length) {
      long at = offset + done;
      int inObject = offsetInObject(at);
      int piece = (int) Math.min(length - done, objectSize - inObject);
      visitor.extent(objectNumber(at), inObject, piece, done);
      done += piece;
      pieces++;
    }
    return pieces;
  }
}
