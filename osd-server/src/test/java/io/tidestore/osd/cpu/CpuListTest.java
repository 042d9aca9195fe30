package io.tidestore.osd.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CpuListTest {
  @Test
  void roundTripsKernelFormat() {
    assertEquals("0-3,8,10-11", CpuList.format(CpuList.parse("0-3,8,10-11\n")));
    assertEquals("5", CpuList.format(CpuList.parse(" 5 ")));
    assertTrue(CpuList.parse("").isEmpty());
  }

  @Test
  void rejectsGarbageWithTheText() {
    var e = assertThrows(IllegalArgumentException.class, () -> CpuList.parse("0-x"));
    assertTrue(e.getMessage().contains("0-x"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> CpuList.parse("3-1"));
    assertThrows(IllegalArgumentException.class, () -> CpuList.parse("9000"));
    assertThrows(IllegalArgumentException.class, () -> CpuList.parse("1,,2"));
  }
}
