package io.tidestore.osd.security;

/**
 * One line of an auth file: {@code access}, optionally narrowed to one image and/or one pool (null:
 * any).
 */
public record Grant(Access access, String image, String pool) {
  /** Whether this grant allows {@code needed} on {@code image} of {@code pool}. */
  public boolean allows(Access needed, String pool, String image) {
    return access.covers(needed)
        && (this.pool == null || this.pool.equals(pool))
        && (this.image == null || this.image.equals(image));
  }

  /**
   * Whether this grant allows {@code needed} on the object {@code object} of {@code pool}: an
   * image-narrowed grant covers only its image's objects ({@link ImageObjects}).
   */
  public boolean allowsObject(Access needed, String pool, String object) {
    return access.covers(needed)
        && (this.pool == null || this.pool.equals(pool))
        && (image == null || ImageObjects.belongsTo(object, image));
  }

  /** Whether this grant is not narrowed to a pool or an image. */
  public boolean unrestricted() {
    return image == null && pool == null;
  }

  @Override
  public String toString() {
    return "allow "
        + access.word()
        + (image != null ? " image=" + image : "")
        + (pool != null ? " pool=" + pool : "");
  }
}
