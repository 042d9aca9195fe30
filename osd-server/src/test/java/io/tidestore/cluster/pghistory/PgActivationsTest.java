package io.tidestore.cluster.pghistory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.CommandCodec;
import io.tidestore.cluster.map.FailureDomain;
import io.tidestore.cluster.map.MapChanges;
import io.tidestore.cluster.map.MapCommand;
import io.tidestore.cluster.map.MapFormatException;
import io.tidestore.cluster.placement.PgId;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The monitors' record of PG activations: what is kept, what is refused, its encoding. */
class PgActivationsTest {
  /** Pool rbd (id 1), 64 PGs. */
  private static final ClusterMap MAP =
      MapChanges.apply(
              ClusterMap.EMPTY,
              new MapCommand.Init(java.util.UUID.randomUUID(), 1, FailureDomain.OSD))
          .map();

  private static TreeMap<PgId, PgActivation> batch(Object... pgAndActivation) {
    TreeMap<PgId, PgActivation> b = new TreeMap<>(PgActivations.ORDER);
    for (int i = 0; i < pgAndActivation.length; i += 2) {
      b.put((PgId) pgAndActivation[i], (PgActivation) pgAndActivation[i + 1]);
    }
    return b;
  }

  @Test
  void aLaterActivationReplacesAnEarlierOneNeverTheReverse() {
    PgId pg = new PgId(1, 7);
    PgActivations one =
        PgActivations.EMPTY.apply(MAP, batch(pg, new PgActivation(1, List.of(2, 0)))).activations();
    assertEquals(List.of(0, 2), one.get(pg).members(), "members are kept ascending");
    PgActivations.Outcome stale = one.apply(MAP, batch(pg, new PgActivation(0, List.of(5))));
    assertEquals(List.of(pg), stale.refused());
    assertSame(one, stale.activations());
    PgActivations same = one.apply(MAP, batch(pg, new PgActivation(1, List.of(0)))).activations();
    assertEquals(new PgActivation(1, List.of(0)), same.get(pg), "the same epoch: the newest wins");
  }

  @Test
  void aGonePoolAnUnknownSeedOrAFutureEpochIsRefused() {
    PgActivations.Outcome o =
        PgActivations.EMPTY.apply(
            MAP,
            batch(
                new PgId(9, 0), new PgActivation(1, List.of(0)),
                new PgId(1, 64), new PgActivation(1, List.of(0)),
                new PgId(1, 3), new PgActivation(MAP.epoch() + 1, List.of(0)),
                new PgId(1, 4), new PgActivation(MAP.epoch(), List.of(0))));
    assertEquals(List.of(new PgId(1, 3), new PgId(1, 64), new PgId(9, 0)), o.refused());
    assertEquals(1, o.activations().size());
  }

  @Test
  void heldOnlyByAMemberThatKeptIt() {
    PgActivation a = new PgActivation(12, List.of(1, 4));
    assertTrue(a.heldBy(4, 12));
    assertTrue(a.heldBy(1, 30));
    assertFalse(a.heldBy(4, 11), "a member that never kept it (wiped, or behind)");
    assertFalse(a.heldBy(2, 12), "not a member");
  }

  @Test
  void theEncodingRoundTripsAndRefusesDamage() throws Exception {
    PgActivations all =
        PgActivations.EMPTY
            .apply(
                MAP,
                batch(
                    new PgId(1, 0), new PgActivation(1, List.of(0, 1, 2)),
                    new PgId(1, 63), new PgActivation(1, List.of(7))))
            .activations();
    byte[] bytes = all.encode();
    PgActivations back = PgActivations.decode(bytes);
    assertEquals(all.get(new PgId(1, 63)), back.get(new PgId(1, 63)));
    assertArrayEquals(bytes, back.encode());
    for (int i = 0; i < bytes.length; i += 5) {
      byte[] damaged = bytes.clone();
      damaged[i] ^= 0x40;
      assertThrows(MapFormatException.class, () -> PgActivations.decode(damaged), "flip at " + i);
    }
    assertThrows(
        MapFormatException.class,
        () -> PgActivations.decode(Arrays.copyOf(bytes, bytes.length - 1)));
    TreeMap<PgId, PgActivation> command = batch(new PgId(1, 2), new PgActivation(3, List.of(4)));
    byte[] entry = PgActivations.encodeCommand(command);
    assertTrue(PgActivations.isCommand(entry));
    assertFalse(PgActivations.isCommand(CommandCodec.encode(new MapCommand.PoolRemove("rbd"))));
    assertEquals(command, PgActivations.decodeCommand(entry));
  }

  @Test
  void aRemovedPoolsPgsAreForgotten() {
    PgActivations one =
        PgActivations.EMPTY
            .apply(MAP, batch(new PgId(1, 1), new PgActivation(1, List.of(0))))
            .activations();
    ClusterMap without = MapChanges.apply(MAP, new MapCommand.PoolRemove("rbd")).map();
    assertEquals(0, one.keepPoolsOf(without).size());
    assertSame(one, one.keepPoolsOf(MAP));
  }
}
