package io.tidestore.osd.service;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class NotifyAddressTest {
  @Test
  void anAbstractNameStartsWithNulAndCountsNoTerminator() {
    NotifyAddress a = NotifyAddress.parse("@sd/notify");
    assertArrayEquals(new byte[] {0, 's', 'd', '/', 'n', 'o', 't', 'i', 'f', 'y'}, a.sunPath());
    assertEquals(2 + 10, a.socklen());
  }

  @Test
  void aPathIsNulTerminated() {
    NotifyAddress a = NotifyAddress.parse("/run/n");
    assertArrayEquals(new byte[] {'/', 'r', 'u', 'n', '/', 'n', 0}, a.sunPath());
    assertEquals(2 + 7, a.socklen());
  }

  @Test
  void refusesWhatIsNeitherAndWhatDoesNotFit() {
    var e = assertThrows(IllegalArgumentException.class, () -> NotifyAddress.parse("run/n"));
    assertTrue(e.getMessage().contains("run/n"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> NotifyAddress.parse("vsock:2:1"));
    NotifyAddress.parse("/" + "x".repeat(106)); // 107 bytes and the NUL: the largest path
    assertThrows(IllegalArgumentException.class, () -> NotifyAddress.parse("/" + "x".repeat(107)));
    NotifyAddress.parse("@" + "x".repeat(107));
    assertThrows(IllegalArgumentException.class, () -> NotifyAddress.parse("@" + "x".repeat(108)));
  }
}
