package io.tidestore.it;

import static io.tidestore.it.ClusterProcesses.awaitMonReady;
import static io.tidestore.it.ClusterProcesses.awaitRegistered;
import static io.tidestore.it.ClusterProcesses.run;
import static io.tidestore.it.ClusterProcesses.startMon;
import static io.tidestore.it.ClusterProcesses.startOsd;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidestore.it.ClusterProcesses.Result;
import io.tidestore.store.testing.RequiredTools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A monitor and an OSD as real processes, both under {@code --tls require --tls-verify-peer} with
 * certificates from {@code tidestore tls init} and the monitor's {@code --auth-file}: the OSD
 * registers and heartbeats over TLS, {@code status} and {@code pool} speak TLS with a client's
 * certificate, a plaintext client, one of another CA and one without the {@code *} cap are each
 * refused with a clear error while the monitor keeps serving, the NBD gateway serves {@code
 * nbds://} to libnbd and refuses plaintext, and {@code openssl s_client} sees TLS 1.3 on the
 * monitor's port and on its Raft port, which refuse TLS 1.2.
 */
class ClusterTlsIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern NBD_PORT = Pattern.compile("nbd=(\\d+)");

  /** tls init's default server certificate is issued to its first SAN: the OSD's name as client. */
  private static final String OSD_NAME = "127.0.0.1";

  @TempDir Path dir;

  @Test
  void monitorLinksSpeakTlsAndRefuseStrangers() throws Exception {
    RequiredTools.command("openssl", "openssl");
    Path pki = dir.resolve("pki");
    Path other = dir.resolve("other");
    OsdProcess.run("tls", "init", "--dir", pki.toString(), "--client", "admin", "ro");
    OsdProcess.run("tls", "init", "--dir", other.toString(), "--client", "admin");
    Path admin = pki.resolve("clients").resolve("admin");
    Path auth = dir.resolve("auth");
    Files.writeString(auth, "admin allow *\nro allow r\n" + OSD_NAME + " allow *\n");
    String[] tls = {"--tls", "require", "--tls-verify-peer", "--tls-certificates", pki.toString()};

    int port = ClusterProcesses.freePortPair();
    String monitors = "127.0.0.1:" + port;
    List<String> monFlags = new ArrayList<>(List.of(tls));
    monFlags.addAll(List.of("--auth-file", auth.toString(), "--failure-domain", "osd"));
    try (OsdProcess mon =
        startMon("a", dir.resolve("mon.a"), port, null, monFlags.toArray(String[]::new))) {
      awaitMonReady(mon);
      String ready = mon.awaitLine("tidestore mon ready", WAIT);
      assertTrue(ready.contains("monitor links TLS only"), ready);
      assertTrue(ready.contains("(https /metrics"), ready);
      assertTrue(ready.contains("raft mutual TLS on loopback"), ready);
      mon.awaitLine("created the cluster", WAIT);
      // The monitor's port and Raft's (port + 1) refuse TLS 1.2, as every listener: Ratis' gRPC
      // server is pinned to TLS 1.3 by RaftGroupSetup. (Both accept 1.3: openssl below.)
      for (int tls13Only : List.of(port, port + 1)) {
        String old = OpenSslClient.refusesTls12(tls13Only, admin);
        assertTrue(old.contains("protocol version"), old);
      }

      try (OsdProcess osd = startOsd(dir.resolve("osd.0"), monitors, tls)) {
        int id = awaitRegistered(osd);
        osd.awaitReady();
        JsonNode s = status(monitors, admin);
        assertEquals(1, s.path("osdmap").path("num_up_osds").asInt(), s.toString());
        assertEquals(id, s.path("osdmap").path("osds").path(0).path("osd").asInt(), s.toString());
        assertEquals("[\"a\"]", s.path("quorum_names").toString(), s.toString());

        Result plaintext = run("status", "--mon", monitors);
        assertNotEquals(0, plaintext.exit(), plaintext.output());
        assertTrue(plaintext.output().contains("speaks TLS only"), plaintext.output());
        assertTrue(mon.awaitCountContaining("speaks TLS only", 1, WAIT), mon.output());
        assertServed(monitors, admin);

        Result stranger = statusWith(monitors, other.resolve("clients").resolve("admin"));
        assertNotEquals(0, stranger.exit(), stranger.output());
        assertTrue(stranger.output().contains("not signed by the expected CA"), stranger.output());
        assertTrue(mon.awaitCountContaining("TLS handshake with", 1, WAIT), mon.output());
        assertServed(monitors, admin);

        Result anonymous = statusWith(monitors, RefusedCertificates.caOnly(pki, dir));
        assertNotEquals(0, anonymous.exit(), anonymous.output());
        assertTrue(anonymous.output().contains("no client certificate"), anonymous.output());
        mon.awaitLine("no client certificate", WAIT);
        assertServed(monitors, admin);

        Path ro = pki.resolve("clients").resolve("ro");
        assertEquals(0, statusWith(monitors, ro).exit(), "r may read the status");
        Result roCreate = poolCreate(monitors, ro, "vms");
        assertNotEquals(0, roCreate.exit(), roCreate.output());
        assertTrue(roCreate.output().contains("client 'ro' needs '*'"), roCreate.output());
        mon.awaitLine("refused a request of type 5", WAIT);

        Result create = poolCreate(monitors, admin, "vms");
        assertEquals(0, create.exit(), create.output());
        gatewayServesNbdsOnly(monitors, admin, tls);
        Result rm =
            run("pool", "rm", "vms", "--mon", monitors, "--tls-certificates", admin.toString());
        assertEquals(0, rm.exit(), rm.output());

        String sClient = OpenSslClient.handshake(port, admin);
        assertTrue(sClient.contains("Verify return code: 0 (ok)"), sClient);
        assertTrue(sClient.contains("TLSv1.3"), sClient);
        // Raft (port + 1: the monitor's own proposals, and votes and entries in a group) too.
        String raft = OpenSslClient.handshake(port + 1, admin);
        assertTrue(raft.contains("Verify return code: 0 (ok)"), raft);
        assertTrue(raft.contains("TLSv1.3"), raft);

        // The OSD's heartbeats kept it up over TLS through all of the above.
        JsonNode after = status(monitors, admin);
        assertEquals(1, after.path("osdmap").path("num_up_osds").asInt(), after.toString());
        assertFalse(after.path("health").path("checks").has("OSD_DOWN"), after.toString());
        assertFalse(osd.output().contains("TLS with monitor"), osd.output());
      }
      assertFalse(mon.output().contains("\tat "), "a refusal logged a stack trace");
    }
  }

  /**
   * The NBD gateway of pool vms under the same TLS flags, reaching the monitor and the OSD with its
   * server certificate: libnbd's nbdcopy writes an image over {@code nbds://} with the admin's
   * certificate and reads it back; a plaintext client is refused.
   */
  private void gatewayServesNbdsOnly(String monitors, Path admin, String[] tls) throws Exception {
    RequiredTools.command("nbdcopy", "libnbd-bin");
    Result image =
        run(
            "image",
            "--tls-certificates",
            admin.toString(),
            "create",
            "disk",
            "--size",
            "2M",
            "--pool",
            "vms",
            "--mon",
            monitors);
    assertEquals(0, image.exit(), image.output());
    List<String> args =
        new ArrayList<>(
            List.of(
                "nbd",
                "--mon",
                monitors,
                "--pool",
                "vms",
                "--nbd-port",
                "0",
                "--op-timeout",
                "1m"));
    args.addAll(List.of(tls));
    try (OsdProcess gateway = OsdProcess.start(args.toArray(String[]::new))) {
      Matcher ready =
          NBD_PORT.matcher(
              gateway.awaitLine("tidestore nbd gateway ready", ClusterProcesses.START));
      assertTrue(ready.find(), gateway.output());
      String address = "127.0.0.1:" + ready.group(1) + "/disk";
      String nbds = "nbds://" + address + "?tls-certificates=" + admin;
      byte[] data = new byte[2 << 20];
      new Random(18).nextBytes(data);
      Path in = Files.write(dir.resolve("in.img"), data);
      Path out = dir.resolve("out.img");
      assertTool(tool("nbdcopy", in.toString(), nbds));
      assertTool(tool("nbdcopy", nbds, out.toString()));
      assertEquals(-1, Files.mismatch(in, out), "read back through the gateway");
      gateway.awaitLine("TLS, client 'admin'", WAIT); // the gateway checked its certificate
      Result plaintext = tool("env", "LIBNBD_DEBUG=1", "nbdinfo", "nbd://" + address);
      assertNotEquals(0, plaintext.exit(), plaintext.output());
      assertTrue(plaintext.output().contains("TLS is required"), plaintext.output());
      assertFalse(gateway.output().contains("\tat "), gateway.output());
    }
  }

  /** Runs {@code command} (a client tool, not the jar) to its end. */
  private static Result tool(String... command) throws Exception {
    try (OsdProcess p = OsdProcess.startCommand(command)) {
      return new Result(p.awaitExit(ClusterProcesses.COMMAND), p.output());
    }
  }

  private static void assertTool(Result r) {
    assertEquals(0, r.exit(), r.output());
  }

  private static void assertServed(String monitors, Path client) throws Exception {
    assertEquals(1, status(monitors, client).path("osdmap").path("num_up_osds").asInt());
  }

  private static JsonNode status(String monitors, Path client) throws Exception {
    Result r = statusWith(monitors, client);
    assertEquals(0, r.exit(), r.output());
    return JSON.readTree(r.output().substring(r.output().indexOf('{')));
  }

  private static Result statusWith(String monitors, Path client) throws Exception {
    return run(
        "status", "--mon", monitors, "--format", "json", "--tls-certificates", client.toString());
  }

  private static Result poolCreate(String monitors, Path client, String name) throws Exception {
    return run(
        "pool",
        "create",
        name,
        "--size",
        "1",
        "--min-size",
        "1",
        "--pg-num",
        "8",
        "--mon",
        monitors,
        "--tls-certificates",
        client.toString());
  }
}
