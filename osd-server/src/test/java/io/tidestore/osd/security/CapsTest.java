package io.tidestore.osd.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which objects a grant covers (an image's header and data objects only), and why it refuses. */
class CapsTest {
  private static AuthFile file(String... lines) throws IOException {
    return AuthFile.parse(Path.of("auth"), List.of(lines));
  }

  @Test
  void anObjectBelongsToTheImageItsRbdNameNames() {
    assertTrue(ImageObjects.belongsTo("rbd_header.vm1", "vm1"));
    assertTrue(ImageObjects.belongsTo("rbd_data.vm1.0000000000000000", "vm1"));
    assertFalse(ImageObjects.belongsTo("rbd_header.vm10", "vm1"));
    assertFalse(ImageObjects.belongsTo("rbd_header.vm", "vm1"));
    assertFalse(ImageObjects.belongsTo("rbd_data.vm10.0000000000000000", "vm1"));
    assertFalse(ImageObjects.belongsTo("rbd_data.vm1", "vm1"), "no object number: no image");
    assertFalse(ImageObjects.belongsTo("vm1", "vm1"));
    assertFalse(ImageObjects.belongsTo("rbd_directory", "vm1"));
    assertEquals("vm1", ImageObjects.imageOf("rbd_data.vm1.0000000000000001"));
    assertEquals("vm1", ImageObjects.imageOf("rbd_header.vm1"));
    assertNull(ImageObjects.imageOf("rbd_data.vm1"));
    assertNull(ImageObjects.imageOf("rbd_header."));
    assertNull(ImageObjects.imageOf("loose-object"));
  }

  @Test
  void anImageNarrowedGrantCoversItsImageObjectsAndNothingElse() throws IOException {
    Caps vm1 = file("vm1 allow rw image=vm1", "vm1 allow r image=golden").caps("vm1");
    String pool = ServerSecurity.STANDALONE_POOL;
    assertTrue(vm1.allowsObject(Access.READ_WRITE, pool, "rbd_data.vm1.0000000000000007"));
    assertTrue(vm1.allowsObject(Access.READ_WRITE, pool, "rbd_header.vm1"));
    assertTrue(vm1.allowsObject(Access.READ, pool, "rbd_data.golden.0000000000000000"));
    assertFalse(vm1.allowsObject(Access.READ_WRITE, pool, "rbd_data.golden.0000000000000000"));
    assertFalse(vm1.allowsObject(Access.READ, pool, "rbd_data.vm2.0000000000000000"));
    assertFalse(vm1.allowsObject(Access.READ, pool, "loose-object"), "objects of no image");
    assertFalse(vm1.allows(Access.READ, pool, null), "pool-wide reads (LIST, metrics)");
  }

  @Test
  void poolNarrowingAndPoolWideGrants() throws IOException {
    AuthFile f = file("ops allow r pool=rbd", "elsewhere allow rw pool=other", "all allow rw");
    String pool = ServerSecurity.STANDALONE_POOL;
    assertTrue(f.caps("ops").allowsObject(Access.READ, pool, "loose-object"));
    assertTrue(f.caps("ops").allows(Access.READ, pool, null));
    assertFalse(f.caps("ops").allowsObject(Access.READ_WRITE, pool, "loose-object"));
    assertFalse(f.caps("elsewhere").allowsObject(Access.READ, pool, "rbd_header.vm1"));
    assertTrue(f.caps("all").allowsObject(Access.READ_WRITE, pool, "anything"));
    assertFalse(f.caps("all").admin());
    assertTrue(Caps.FULL.allowsObject(Access.ALL, pool, "anything"));
  }

  @Test
  void withoutAnAuthFileEveryClientMayDoEverythingUnderItsOwnName() {
    Caps admin = ServerSecurity.plaintext().caps("admin");
    assertTrue(admin.admin());
    assertEquals("client 'admin'", admin.who()); // in the log lines, as with an auth file
    assertEquals(
        "a client without a certificate", ServerSecurity.plaintext().caps((String) null).who());
  }

  @Test
  void refusalsSayWhyForTheMetricAndTheMessage() throws IOException {
    AuthFile f = file("ro allow r");
    assertEquals(Refusal.NO_CERTIFICATE, f.caps(null).refusal(Access.READ));
    assertEquals(Refusal.UNKNOWN_CLIENT, f.caps("stranger").refusal(Access.READ));
    assertEquals(Refusal.NO_WRITE_CAP, f.caps("ro").refusal(Access.READ_WRITE));
    assertEquals(Refusal.NO_ADMIN_CAP, f.caps("ro").refusal(Access.ALL));
    assertEquals("no_write_cap", Refusal.NO_WRITE_CAP.label());
    String why = f.caps("ro").whyRefused(Access.READ_WRITE);
    assertTrue(why.contains("client 'ro' needs 'rw'") && why.contains("allow r"), why);
    assertTrue(f.caps("stranger").whyRefused(Access.READ).contains("no grant for"));
    assertTrue(f.caps(null).whyRefused(Access.READ).contains("presented none"));
  }
}
