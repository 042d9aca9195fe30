package io.tidestore.osd.image;

/**
 * The size of an open image as its header says now, shared by every NBD connection to it: a resize
 * or removal through the object protocol ({@link ImageHeaderWatch}) updates it at once, so a
 * connection opened before a shrink cannot write past the new end, and one opened before {@code
 * image rm} cannot write at all (a removed image has size 0: writes get ENOSPC, reads EINVAL).
 * Otherwise those writes would land in data objects beyond the header's size, and a later grow or
 * an image created under the same name would read them back.
 */
final class LiveSize {
  private volatile long bytes;

  LiveSize(long bytes) {
    this.bytes = bytes;
  }

  long get() {
    return bytes;
  }

  void set(long bytes) {
    this.bytes = bytes;
  }
}
