package io.tidestore.osd.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ImageLayoutTest {
  private final ImageLayout layout =
      new ImageLayout("10226b8b4567", ImageLayout.DEFAULT_OBJECT_SIZE);

  @Test
  void namesFollowRbd() {
    assertEquals("rbd_data.10226b8b4567.0000000000000000", layout.dataObjectName(0));
    assertEquals("rbd_data.10226b8b4567.00000000000001ff", layout.dataObjectName(511));
    assertEquals("rbd_data.10226b8b4567.ffffffffffffffff", layout.dataObjectName(-1));
    assertEquals("rbd_header.10226b8b4567", layout.headerObjectName());
  }

  @Test
  void offsetsMapToObjects() {
    long mib4 = 4L << 20;
    assertEquals(0, layout.objectNumber(mib4 - 1));
    assertEquals(1, layout.objectNumber(mib4));
    assertEquals(0, layout.offsetInObject(mib4));
    assertEquals(4095, layout.offsetInObject(3 * mib4 + 4095));
    assertEquals(512, layout.objectCount(2L << 30));
    assertEquals(1, layout.objectCount(1));
    assertEquals(0, layout.objectCount(0));
  }

  private record Piece(long object, int objectOffset, int length, long requestOffset) {}

  private List<Piece> split(long offset, long length) {
    List<Piece> pieces = new ArrayList<>();
    layout.forEachExtent(offset, length, (o, oo, l, ro) -> pieces.add(new Piece(o, oo, l, ro)));
    return pieces;
  }

  @Test
  void requestsSplitAtObjectBoundaries() {
    int mib4 = 4 << 20;
    assertEquals(List.of(new Piece(0, 4096, 4096, 0)), split(4096, 4096));
    // 64 KiB straddling objects 0 and 1.
    assertEquals(
        List.of(new Piece(0, mib4 - 1024, 1024, 0), new Piece(1, 0, 65536 - 1024, 1024)),
        split(mib4 - 1024, 65536));
    // 10 MiB from 1 MiB: the tail of object 0, all of object 1, the head of object 2.
    assertEquals(
        List.of(
            new Piece(0, 1 << 20, 3 << 20, 0),
            new Piece(1, 0, mib4, 3 << 20),
            new Piece(2, 0, 3 << 20, 7 << 20)),
        split(1 << 20, 10 << 20));
    assertEquals(List.of(), split(123, 0));
  }

  @Test
  void badLayoutsAndRangesAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> new ImageLayout("id", 3 << 20));
    assertThrows(IllegalArgumentException.class, () -> new ImageLayout("a.b", 4096));
    assertThrows(
        IllegalArgumentException.class, () -> layout.forEachExtent(-1, 1, (a, b, c, d) -> {}));
    assertThrows(
        IllegalArgumentException.class,
        () -> layout.forEachExtent(Long.MAX_VALUE, 2, (a, b, c, d) -> {}));
  }
}
