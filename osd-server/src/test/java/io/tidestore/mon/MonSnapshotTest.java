package io.tidestore.mon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.FailureDomain;
import io.tidestore.cluster.map.MapChanges;
import io.tidestore.cluster.map.MapCodec;
import io.tidestore.cluster.map.MapCommand;
import io.tidestore.cluster.map.MapFormatException;
import io.tidestore.cluster.pghistory.PgActivation;
import io.tidestore.cluster.pghistory.PgActivations;
import io.tidestore.cluster.placement.PgId;
import java.util.List;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** A monitor's snapshot: the map and the PG activations; an earlier build's (the map alone). */
class MonSnapshotTest {
  private static ClusterMap map() {
    return MapChanges.apply(
            ClusterMap.EMPTY, new MapCommand.Init(UUID.randomUUID(), 1, FailureDomain.OSD))
        .map();
  }

  @Test
  void bothPartsRoundTrip() throws Exception {
    ClusterMap map = map();
    TreeMap<PgId, PgActivation> batch = new TreeMap<>(PgActivations.ORDER);
    batch.put(new PgId(1, 5), new PgActivation(1, List.of(0, 2)));
    PgActivations activations = PgActivations.EMPTY.apply(map, batch).activations();
    MonSnapshot back = MonSnapshot.decode(new MonSnapshot(map, activations).encode());
    assertEquals(map, back.map());
    assertEquals(activations.get(new PgId(1, 5)), back.activations().get(new PgId(1, 5)));
  }

  @Test
  void anEarlierBuildsSnapshotIsTheMapAlone() throws Exception {
    ClusterMap map = map();
    MonSnapshot back = MonSnapshot.decode(MapCodec.encode(map));
    assertEquals(map, back.map());
    assertEquals(0, back.activations().size());
  }

  @Test
  void aDamagedSnapshotIsRefused() {
    byte[] bytes = new MonSnapshot(map(), PgActivations.EMPTY).encode();
    bytes[bytes.length - 2] ^= 1;
    assertThrows(MapFormatException.class, () -> MonSnapshot.decode(bytes));
  }
}
