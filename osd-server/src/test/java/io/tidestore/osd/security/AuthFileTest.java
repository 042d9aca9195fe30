package io.tidestore.osd.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The auth file's grammar, its clear refusals, and what each grant allows. */
class AuthFileTest {
  private static final Path FILE = Path.of("/etc/tidestore/auth");

  private static AuthFile parse(String... lines) throws IOException {
    return AuthFile.parse(FILE, List.of(lines));
  }

  @Test
  void grantsAreNarrowedByImageAndPoolAndUnited() throws IOException {
    AuthFile f =
        parse(
            "# clients of the lab",
            "admin allow *",
            "backup allow r   # reads everything",
            "vm1 allow rw image=disk1 pool=rbd",
            "vm1 allow r image=golden",
            "",
            "boxed allow * image=x");
    assertEquals(4, f.clients());
    Caps admin = f.caps("admin");
    assertTrue(admin.admin());
    assertTrue(admin.canWrite("any", "thing"));

    Caps backup = f.caps("backup");
    assertTrue(backup.canRead("rbd", "disk1"));
    assertFalse(backup.canWrite("rbd", "disk1"));
    assertFalse(backup.admin());

    Caps vm1 = f.caps("vm1");
    assertTrue(vm1.canWrite("rbd", "disk1"));
    assertFalse(vm1.canWrite("other", "disk1"), "pool narrowing ignored");
    assertFalse(vm1.canRead("rbd", "disk2"), "image narrowing ignored");
    assertTrue(vm1.canRead("rbd", "golden"));
    assertFalse(vm1.canWrite("rbd", "golden"));

    assertFalse(f.caps("boxed").admin(), "administration from a narrowed * grant");
    assertTrue(f.caps("boxed").canWrite("rbd", "x"));
  }

  @Test
  void unknownClientsAndClientsWithoutACertificateGetNothing() throws IOException {
    AuthFile f = parse("admin allow *");
    for (Caps c : new Caps[] {f.caps("stranger"), f.caps(null)}) {
      assertFalse(c.canRead("rbd", "a"));
      assertFalse(c.admin());
    }
    assertTrue(Caps.FULL.admin());
    assertTrue(Caps.FULL.canWrite("rbd", "a"));
  }

  @Test
  void badLinesAreRefusedWithFileAndLine() {
    String[][] bad = {
      {"alice"},
      {"alice deny r"},
      {"alice allow x"},
      {"alice allow r image="},
      {"alice allow r image=a image=b"},
      {"alice allow r color=red"},
      {"alice allow r image=a.b"},
    };
    for (String[] lines : bad) {
      IOException e = assertThrows(IOException.class, () -> parse(lines), lines[0]);
      assertTrue(e.getMessage().startsWith(FILE + ":1: "), e.getMessage());
    }
    IOException second = assertThrows(IOException.class, () -> parse("ok allow r", "bad"));
    assertTrue(second.getMessage().startsWith(FILE + ":2: "), second.getMessage());
  }
}
