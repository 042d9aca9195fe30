package io.tidestore.cluster.map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The map and command encodings: exact round trips, and damage refused, never applied. */
class MapCodecTest {

  private static ClusterMap sample() {
    ClusterMap map = MapChangesTest.created();
    map = MapChangesTest.boot(map, -1, UUID.randomUUID()).map();
    map = MapChangesTest.boot(map, 4, UUID.randomUUID()).map();
    map =
        MapChanges.apply(map, new MapCommand.PoolCreate("vms", 2, 1, 32, FailureDomain.HOST)).map();
    TreeMap<Integer, Long> down = new TreeMap<>();
    down.put(4, map.osd(4).orElseThrow().upFrom());
    return MapChanges.apply(map, new MapCommand.MarkDown(down, 123456789L)).map();
  }

  @Test
  void aMapRoundTripsExactly() throws Exception {
    ClusterMap map = sample();
    byte[] bytes = MapCodec.encode(map);
    ClusterMap decoded = MapCodec.decode(bytes);
    assertEquals(map, decoded);
    assertArrayEquals(bytes, MapCodec.encode(decoded), "the encoding is canonical");
  }

  @Test
  void everyCommandRoundTrips() throws Exception {
    TreeMap<Integer, Long> ids = new TreeMap<>();
    ids.put(3, 17L);
    ids.put(9, 2L);
    for (MapCommand command :
        List.of(
            new MapCommand.Init(UUID.randomUUID(), 42, FailureDomain.HOST),
            new MapCommand.Boot(-1, UUID.randomUUID(), "h", 2.5, "[::1]:6800", "[::1]:9283", 7),
            new MapCommand.MarkDown(ids, 99),
            new MapCommand.MarkOut(ids),
            new MapCommand.PoolCreate("p", 3, 2, 128, null),
            new MapCommand.PoolCreate("q", 1, 1, 1, FailureDomain.OSD),
            new MapCommand.PoolRemove("p"))) {
      assertEquals(command, CommandCodec.decode(CommandCodec.encode(command)));
    }
  }

  @Test
  void aFlippedBitOrATruncationIsRefused() {
    byte[] bytes = MapCodec.encode(sample());
    for (int i = 0; i < bytes.length; i += 7) {
      byte[] damaged = bytes.clone();
      damaged[i] ^= 0x10;
      assertThrows(MapFormatException.class, () -> MapCodec.decode(damaged), "bit flip at " + i);
    }
    assertThrows(
        MapFormatException.class, () -> MapCodec.decode(Arrays.copyOf(bytes, bytes.length - 9)));
    byte[] command = CommandCodec.encode(new MapCommand.PoolRemove("rbd"));
    command[command.length - 6] ^= 1;
    assertThrows(MapFormatException.class, () -> CommandCodec.decode(command));
  }

  @Test
  void anotherVersionIsRefusedWithItsNumber() throws Exception {
    Codec.Writer w = new Codec.Writer();
    w.out.writeInt(MapCodec.MAGIC);
    w.out.writeShort(MapCodec.VERSION + 1);
    MapFormatException e =
        assertThrows(MapFormatException.class, () -> MapCodec.decode(w.sealed()));
    assertTrue(e.getMessage().contains("version " + (MapCodec.VERSION + 1)), e.getMessage());
  }
}
