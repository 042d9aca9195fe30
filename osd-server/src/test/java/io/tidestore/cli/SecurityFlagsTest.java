package io.tidestore.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon's and the clients' TLS flags refuse what would expose the store or cannot work, with
 * one line naming the flag, before anything listens or is created.
 */
class SecurityFlagsTest {
  @TempDir Path dir;

  private CliRun osd(String... flags) {
    return daemon("osd", "data", flags);
  }

  private CliRun mon(String... flags) {
    return daemon("mon", "mon", flags);
  }

  /** {@code tidestore COMMAND --data DIR/DATA FLAGS...}, in-process. */
  private CliRun daemon(String command, String data, String... flags) {
    String[] args = new String[flags.length + 3];
    args[0] = command;
    args[1] = "--data";
    args[2] = dir.resolve(data).toString();
    System.arraycopy(flags, 0, args, 3, flags.length);
    return CliRun.of(args);
  }

  @Test
  void leavingLoopbackNeedsTlsWithClientCertificatesOrInsecure() {
    for (String flag : new String[] {"--listen", "--admin-listen"}) {
      CliRun r = osd(flag, "0.0.0.0");
      assertEquals(2, r.exit(), r.err());
      assertTrue(r.err().contains(flag + " 0.0.0.0 is not loopback"), r.err());
      assertTrue(r.err().contains("--tls require --tls-verify-peer"), r.err());
      CliRun on = osd(flag, "0.0.0.0", "--tls", "on", "--tls-certificates", dir.toString());
      assertEquals(2, on.exit(), "--tls on is not enough off loopback: " + on.err());
    }
    assertFalse(Files.exists(dir.resolve("data")), "nothing created for a refused start");
  }

  @Test
  void tlsFlagsThatCannotWorkAreRefused() {
    CliRun noCerts = osd("--tls", "require");
    assertEquals(2, noCerts.exit(), noCerts.err());
    assertTrue(noCerts.err().contains("needs --tls-certificates"), noCerts.err());
    CliRun verifyWithoutTls = osd("--tls-verify-peer");
    assertEquals(2, verifyWithoutTls.exit());
    assertTrue(verifyWithoutTls.err().contains("--tls-verify-peer needs"), verifyWithoutTls.err());
    CliRun authWithoutTls = osd("--auth-file", dir.resolve("auth").toString());
    assertEquals(2, authWithoutTls.exit());
    CliRun badMode = osd("--tls", "maybe");
    assertEquals(2, badMode.exit());
    assertTrue(badMode.err().contains("off, on or require"), badMode.err());

    CliRun missingDir =
        osd("--tls", "require", "--tls-certificates", dir.resolve("nope").toString());
    assertEquals(1, missingDir.exit(), missingDir.err());
    assertTrue(missingDir.err().contains("is not a directory"), missingDir.err());
    assertFalse(missingDir.err().contains("Exception"), missingDir.err());
    assertFalse(Files.exists(dir.resolve("data")), "certificates are checked before mkfs");
  }

  @Test
  void aMonitorLeavesLoopbackOnlyWithTlsAndClientCertificatesOrInsecure() {
    CliRun plain = mon("--listen", "0.0.0.0:6789");
    assertEquals(2, plain.exit(), plain.err());
    assertTrue(plain.err().contains("--listen 0.0.0.0 is not loopback"), plain.err());
    assertTrue(plain.err().contains("--tls require --tls-verify-peer"), plain.err());
    assertTrue(plain.err().contains("--insecure"), plain.err());
    CliRun on = mon("--listen", "0.0.0.0:6789", "--tls", "on", "--tls-certificates", "x");
    assertEquals(2, on.exit(), "--tls on is not enough off loopback: " + on.err());
    CliRun admin = mon("--admin-listen", "0.0.0.0");
    assertEquals(2, admin.exit(), admin.err());
    assertTrue(admin.err().contains("--admin-listen 0.0.0.0 is not loopback"), admin.err());

    // Raft between monitors is plaintext without TLS: off loopback only with TLS or --insecure.
    CliRun group = mon("--id", "a", "--peers", "a=10.0.0.1:6789,b=10.0.0.2:6789,c=10.0.0.3:6789");
    assertEquals(2, group.exit(), group.err());
    assertTrue(group.err().contains("Raft between monitors"), group.err());
    assertTrue(group.err().contains("--insecure"), group.err());
    assertTrue(group.err().contains("--tls require --tls-verify-peer"), group.err());
    assertFalse(Files.exists(dir.resolve("mon")), "nothing created for a refused start");
  }

  @Test
  void clientsRefuseACertificateDirectoryTheyCannotUse() {
    CliRun image =
        CliRun.of(
            "image", "--tls-certificates", dir.resolve("nope").toString(), "--osd", "x:1", "ls");
    assertEquals(2, image.exit(), image.err());
    assertTrue(image.err().contains("is not a directory"), image.err());
    CliRun admin =
        CliRun.of("admin", "--tls-certificates", dir.toString(), "--http", "x:1", "status");
    assertEquals(1, admin.exit(), admin.err());
    assertTrue(admin.err().contains("has no readable ca-cert.pem"), admin.err());
    CliRun status =
        CliRun.of("status", "--tls-certificates", dir.toString(), "--mon", "127.0.0.1:1");
    assertEquals(1, status.exit(), status.err());
    assertTrue(status.err().contains("has no readable ca-cert.pem"), status.err());
  }
}
