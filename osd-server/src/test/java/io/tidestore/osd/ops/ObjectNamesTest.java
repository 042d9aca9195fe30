package io.tidestore.osd.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tidestore.osd.protocol.FrameDescriptor;
import io.tidestore.osd.protocol.ShardMap;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.Placement;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class ObjectNamesTest {
  @Test
  void matchesTheStoresPlacementOfPoolZero() {
    for (int i = 0; i < 100; i++) {
      String name = "rbd_data.abc." + i;
      assertEquals(Placement.shardOf(new ObjectKey(0, name), 8), ObjectNames.shardOf(name, 8));
    }
    // Spelled out, as a client in another language would compute it.
    CRC32C crc = new CRC32C();
    crc.update(new byte[8]);
    crc.update("obj".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertEquals((int) (crc.getValue() % 7), ObjectNames.shardOf("obj", 7));
  }

  @Test
  void namesTheStoreCannotHoldHaveNoShard() {
    assertEquals(-1, ObjectNames.shardOf("", 8));
    assertEquals(-1, ObjectNames.shardOf("x".repeat(1025), 8));
    ShardMap map =
        new ShardMap(FrameDescriptor.PLACEMENT_CRC32C, new int[] {1, 2}, new int[] {0, 1});
    assertEquals(-1, map.reactorFor(""));
  }

  @Test
  void namesTheStoreCannotHoldAreInvalidKeys() {
    assertEquals(new ObjectKey(ObjectNames.POOL, "obj"), ObjectNames.key("obj"));
    assertEquals(
        ObjectOpsException.Code.INVALID,
        assertThrows(ObjectOpsException.class, () -> ObjectNames.key("")).code());
    assertEquals(
        ObjectOpsException.Code.INVALID,
        assertThrows(ObjectOpsException.class, () -> ObjectNames.key("x".repeat(1025))).code());
  }
}
