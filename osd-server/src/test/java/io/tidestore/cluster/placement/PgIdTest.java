package io.tidestore.cluster.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PgIdTest {

  @Test
  void writtenAsCephWritesIt() {
    assertEquals("1.2f", new PgId(1, 0x2f).toString());
    assertEquals("12.0", new PgId(12, 0).toString());
    assertEquals("1.ffffffff", new PgId(1, -1).toString());
  }

  @Test
  void parsesWhatItWrites() {
    for (PgId pg : new PgId[] {new PgId(1, 0x2f), new PgId(0, 0), new PgId(3, -1)}) {
      assertEquals(pg, PgId.parse(pg.toString()));
    }
    assertEquals(new PgId(1, 0x2f), PgId.parse("1.2F"));
  }

  @Test
  void rejectsJunkSayingWhy() {
    for (String junk :
        new String[] {
          "",
          "1",
          "1.",
          ".2f",
          "x.2f",
          "1.2g",
          "1.123456789",
          "-1.2f",
          "1.-2",
          "1.2f.3",
          "99999999999.1",
          "1.+2",
          " 1.2f",
          "1.٣"
        }) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> PgId.parse(junk), junk);
      assertTrue(e.getMessage().contains("is not a PG id (POOL.HEXSEED"), e.getMessage());
    }
  }
}
