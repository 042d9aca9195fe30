package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.osd.security.CertificateFiles;
import io.tidestore.osd.security.TlsContexts;
import io.tidestore.store.testing.RequiredTools;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The NBD gateway under {@code --tls require --tls-verify-peer --auth-file}, driven by the real
 * clients with their own TLS flags, as they would be against nbdkit: libnbd's nbdinfo, nbdcopy,
 * nbdsh (python3-libnbd) and fio with {@code nbds://} URIs, qemu-img with a {@code tls-creds-x509}
 * object. Images are created while the daemon is still in clear, then it restarts with TLS.
 */
class NbdTlsIT {
  private static final Duration STOP = Duration.ofSeconds(60);
  private static final long MIB = 1 << 20;
  private static final Path PYTHON = Path.of("/usr/bin/python3");

  @TempDir static Path dir;
  private static OsdProcess osd;
  private static int port;
  private static int metricsPort;
  private static Path certs;

  @BeforeAll
  static void start() throws Exception {
    RequiredTools.command("nbdinfo", "libnbd-bin");
    RequiredTools.command("qemu-img", "qemu-utils");
    RequiredTools.file(Path.of("/usr/lib/python3/dist-packages/nbd.py"), "python3-libnbd");
    certs = dir.resolve("certs");
    try (OsdProcess init =
        OsdProcess.start(
            "tls",
            "init",
            "--dir",
            certs.toString(),
            "--san",
            "127.0.0.1",
            "--client",
            "admin",
            "reader",
            "limited")) {
      assertEquals(0, init.awaitExit(STOP), init.output());
    }
    // A client that has the CA but no certificate of its own.
    Files.createDirectories(certs.resolve("clients/anon"));
    Files.copy(certs.resolve("ca-cert.pem"), certs.resolve("clients/anon/ca-cert.pem"));
    Path auth =
        Files.writeString(
            dir.resolve("auth"),
            "admin allow *\nreader allow r\nlimited allow rw image=vol\n",
            StandardCharsets.UTF_8);
    Path data = dir.resolve("osd");
    try (OsdProcess mkfs =
        OsdProcess.start(
            "mkfs", "--data", data.toString(), "--shards", "2", "--shard-size", "128m")) {
      assertEquals(0, mkfs.awaitExit(STOP), mkfs.output());
    }
    try (OsdProcess clear = OsdProcess.startOsd(data, "--cache-size", "32m")) {
      String ready = clear.awaitLine("tidestore osd ready", STOP);
      for (String image : List.of("vol", "other", "copy")) {
        try (OsdProcess create =
            OsdProcess.start(
                "image",
                "--osd",
                "127.0.0.1:" + port(ready, "object"),
                "create",
                image,
                "--size",
                "64M")) {
          assertEquals(0, create.awaitExit(STOP), create.output());
        }
      }
      // --tls off: STARTTLS is refused by policy, so a TLS client cannot connect.
      Result tls = run(Map.of(), "nbdinfo", uri(port(ready, "nbd"), "vol", "admin"));
      assertNotEquals(0, tls.exit(), tls.output());
      clear.signal("TERM");
      assertEquals(0, clear.awaitExit(STOP), clear.output());
    }
    osd =
        OsdProcess.startOsd(
            data,
            "--cache-size",
            "32m",
            "--tls",
            "require",
            "--tls-certificates",
            certs.toString(),
            "--tls-verify-peer",
            "--auth-file",
            auth.toString());
    String ready = osd.awaitLine("tidestore osd ready", STOP);
    port = port(ready, "nbd");
    metricsPort = port(ready, "metrics");
  }

  @AfterAll
  static void stop() throws Exception {
    if (osd != null) {
      osd.signal("TERM");
      assertEquals(0, osd.awaitExit(STOP), osd.output());
      osd.close();
    }
  }

  private static int port(String ready, String name) {
    Matcher m = Pattern.compile(name + "=(\\d+)").matcher(ready);
    assertTrue(m.find(), ready);
    return Integer.parseInt(m.group(1));
  }

  private static String uri(int port, String image, String client) {
    return uri(port, image, clientDir(client));
  }

  private static String uri(int port, String image, Path clientDir) {
    return "nbds://127.0.0.1:" + port + "/" + image + "?tls-certificates=" + clientDir;
  }

  private static Path clientDir(String client) {
    return certs.resolve("clients").resolve(client);
  }

  private record Result(int exit, String output) {}

  private static Result run(Map<String, String> env, String... command) throws Exception {
    Path log = Files.createTempFile(dir, "out", ".txt");
    ProcessBuilder b = new ProcessBuilder(command).redirectErrorStream(true);
    b.environment().putAll(env);
    Process p = b.redirectOutput(log.toFile()).start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("timed out: " + List.of(command));
    }
    return new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
  }

  /**
   * Runs {@code script} under nbdsh (libnbd's Python binding) with {@code h} connected to {@code
   * image} as {@code client}, with base:allocation asked for; fails on a non-zero exit.
   */
  private static String nbdsh(String image, String client, String script) throws Exception {
    String prelude =
        """
        import errno, os
        h.set_uri_allow_local_file(True)
        h.add_meta_context(nbd.CONTEXT_BASE_ALLOCATION)
        h.connect_uri(os.environ["NBD_URI"])
        """;
    Result r =
        run(
            Map.of("NBD_URI", uri(port, image, client)),
            PYTHON.toString(),
            "-m",
            "nbd",
            "-c",
            prelude + script);
    assertEquals(0, r.exit(), r.output());
    return r.output();
  }

  private static String qemuImageOpts(String image) {
    return "driver=nbd,server.type=inet,server.host=127.0.0.1,server.port="
        + port
        + ",export="
        + image
        + ",tls-creds=tls0";
  }

  private static String tlsCreds(String client) {
    return "tls-creds-x509,id=tls0,dir=" + clientDir(client) + ",endpoint=client";
  }

  @Test
  void plaintextAndClientsWithoutCertificatesAreRefused() throws Exception {
    Result clear = run(Map.of("LIBNBD_DEBUG", "1"), "nbdinfo", "nbd://127.0.0.1:" + port + "/vol");
    assertNotEquals(0, clear.exit(), clear.output());
    assertTrue(clear.output().contains("TLS is required"), clear.output());
    Result anon = run(Map.of(), "nbdinfo", uri(port, "vol", "anon"));
    assertNotEquals(0, anon.exit(), anon.output());
    // Refused by the server (--tls-verify-peer), in one line.
    osd.awaitLine("no client certificate", STOP);
    Result admin = run(Map.of(), "nbdinfo", uri(port, "vol", "admin"));
    assertEquals(0, admin.exit(), admin.output());
    assertTrue(admin.output().contains("with TLS"), admin.output());
  }

  @Test
  void imagesWithoutTheReadCapAreNotListedAndRefusedByPolicy() throws Exception {
    // limited may read and write vol only: other is not listed and is refused by policy.
    Result list = run(Map.of(), "nbdinfo", "--list", uri(port, "", "limited"));
    assertEquals(0, list.exit(), list.output());
    assertTrue(list.output().contains("export=\"vol\""), list.output());
    assertTrue(!list.output().contains("export=\"other\""), list.output());
    Result other = run(Map.of("LIBNBD_DEBUG", "1"), "nbdinfo", uri(port, "other", "limited"));
    assertNotEquals(0, other.exit(), other.output());
    // The text of our NBD_REP_ERR_POLICY reply (libnbd 1.14 reports every GO error as ENOTSUP;
    // NbdTlsHandshakeTest checks the reply type itself).
    assertTrue(other.output().contains("may not read image 'other'"), other.output());
  }

  @Test
  void aReadOnlyClientGetsEpermForChangesAndKeepsReading() throws Exception {
    // reader has r only: the export is read-only, changes fail with EPERM, reads go on. libnbd's
    // strict mode is turned off so that the changes reach the server instead of being refused by
    // libnbd itself.
    nbdsh("vol", "admin", "h.pwrite(b'\\x42' * 4096, 60 << 20)\n");
    String out =
        nbdsh(
            "vol",
            "reader",
            """
            assert h.is_read_only()
            assert not h.can_trim() and not h.can_zero() and not h.can_fua()
            h.set_strict_mode(0)
            for name, attempt in (("write", lambda: h.pwrite(b"x" * 512, 60 << 20)),
                                  ("trim", lambda: h.trim(4096, 60 << 20)),
                                  ("zero", lambda: h.zero(4096, 60 << 20))):
                try:
                    attempt()
                    raise SystemExit(name + " was accepted")
                except nbd.Error as e:
                    assert e.errnum == errno.EPERM, name + ": " + str(e.string)
                assert h.pread(4096, 60 << 20) == b"\\x42" * 4096, name + " changed the data"
            print("read-only and still reading")
            """);
    assertTrue(out.contains("read-only and still reading"), out);
  }

  /** What the daemon logs, once, for each TLS handshake it refuses on the NBD port. */
  private static final String NBD_HANDSHAKE_FAILED = "HandshakeWatch: NBD: TLS handshake with ";

  /**
   * The rest of the hostile list on the NBD port, while a good client (nbdsh, one
   * connection throughout) writes and reads back image other: libnbd with a certificate of another
   * CA and with an expired one; after an acknowledged NBD_OPT_STARTTLS, options in clear, a TLS
   * record of random bytes, and half a TLS ClientHello, then a hang-up. Each is refused at the
   * handshake with one log line naming the reason and counted; the good client makes progress after
   * each (and while the half ClientHello waits); nothing reaches the store: the daemon's NBD writes
   * and user bytes grew by the good client's alone, and image vol, which every refused client
   * named, is unchanged.
   */
  @Test
  void hostileTlsClientsAreRefusedWhileAGoodOneKeepsBeingServed() throws Exception {
    Path refused = Files.createDirectories(dir.resolve("refused"));
    Path otherCa = RefusedCertificates.anotherCa(certs, refused, "admin");
    Path expired = RefusedCertificates.expired(certs, refused, "admin");
    String vol = sha256("vol");
    String before = metrics();
    int failures =
        osd.lines().stream().mapToInt(l -> l.contains(NBD_HANDSHAKE_FAILED) ? 1 : 0).sum();
    Path stop = dir.resolve("busy.stop");
    try (OsdProcess busy =
        OsdProcess.startCommand(
            PYTHON.toString(), "-m", "nbd", "-c", busyClient(uri(port, "other", "admin"), stop))) {
      int progress = 1;
      assertTrue(busy.awaitCount("at ", progress, STOP), busy.output());

      Result stranger = run(Map.of(), "nbdinfo", uri(port, "vol", otherCa));
      assertNotEquals(0, stranger.exit(), stranger.output());
      assertRefused(++failures, "not signed by the expected CA");
      assertTrue(busy.awaitCount("at ", ++progress, STOP), busy.output());

      Result late = run(Map.of(), "nbdinfo", uri(port, "vol", expired));
      assertNotEquals(0, late.exit(), late.output());
      assertRefused(++failures, "the certificate has expired");
      assertTrue(busy.awaitCount("at ", ++progress, STOP), busy.output());

      // A client that goes on in clear, and one whose TLS record holds random bytes.
      try (Socket clear = NbdWire.startTls(port)) {
        clear.getOutputStream().write(NbdWire.exportName("vol"));
        TlsProbes.assertClosedWithAtMostAnAlert(clear);
      }
      assertRefused(++failures, "the peer did not start TLS");
      assertTrue(busy.awaitCount("at ", ++progress, STOP), busy.output());
      try (Socket garbage = NbdWire.startTls(port)) {
        garbage.getOutputStream().write(TlsProbes.garbageRecord());
        TlsProbes.assertClosedWithAtMostAnAlert(garbage);
      }
      assertRefused(++failures, "failed: "); // in the TLS library's words
      assertTrue(busy.awaitCount("at ", ++progress, STOP), busy.output());

      try (Socket cut = NbdWire.startTls(port)) {
        cut.getOutputStream().write(TlsProbes.halfAClientHello(port));
        // The daemon waits for the rest (up to its handshake timeout) and serves the others.
        assertTrue(busy.awaitCount("at ", ++progress, STOP), busy.output());
        cut.shutdownOutput();
        TlsProbes.assertClosedWithAtMostAnAlert(cut);
      }
      assertRefused(++failures, "the connection closed during the TLS handshake");
      assertTrue(busy.awaitCount("at ", ++progress, STOP), busy.output());

      Files.createFile(stop);
      assertEquals(0, busy.awaitExit(STOP), busy.output());
      Matcher served = Pattern.compile("served (\\d+) writes").matcher(busy.output());
      assertTrue(served.find(), busy.output());
      long writes = Long.parseLong(served.group(1));

      String after = awaitMetric(USER_BYTES, Scrape.sum(before, USER_BYTES) + writes * 4096);
      assertEquals(5, delta(before, after, "tidestore_tls_handshake_failures_total"), after);
      assertEquals(writes, delta(before, after, NBD_OPS + "{op=\"write\""), after);
      for (String op : List.of("trim", "write_zeroes", "flush")) {
        assertEquals(0, delta(before, after, NBD_OPS + "{op=\"" + op + "\""), op);
      }
    }
    assertEquals(vol, sha256("vol"), "a refused client changed vol");
    assertFalse(osd.output().contains("\tat "), "a refusal logged a stack trace");
  }

  private static final String NBD_OPS = "tidestore_nbd_op_latency_seconds_count";
  private static final String USER_BYTES = "tidestore_store_user_written_bytes_total";

  /**
   * nbdsh's script for the good client: on one connection to {@code uri}, 4 KiB writes each read
   * back, a line {@code at N} every 20, until {@code stop} exists; then {@code served N writes}.
   */
  private static String busyClient(String uri, Path stop) {
    return """
        import os, time
        h.set_uri_allow_local_file(True)
        h.connect_uri("%s")
        n = 0
        while not os.path.exists("%s"):
            data = bytes([n %% 251 + 1]) * 4096
            h.pwrite(data, (n %% 1024) * 4096)
            assert h.pread(4096, (n %% 1024) * 4096) == data, n
            n += 1
            if n %% 20 == 1:
                print("at", n, flush=True)
            time.sleep(0.002)
        h.shutdown()
        print("served", n, "writes", flush=True)
        """
        .formatted(uri, stop);
  }

  /** The {@code n}th refused handshake is logged with {@code reason}. */
  private static void assertRefused(int n, String reason) throws InterruptedException {
    assertTrue(osd.awaitCountContaining(NBD_HANDSHAKE_FAILED, n, STOP), osd.output());
    List<String> lines =
        osd.lines().stream().filter(l -> l.contains(NBD_HANDSHAKE_FAILED)).toList();
    assertTrue(lines.get(n - 1).contains(reason), lines.get(n - 1));
  }

  /** The SHA-256 of image {@code image}'s whole content, read by the admin client. */
  private static String sha256(String image) throws Exception {
    String out =
        nbdsh(
            image,
            "admin",
            """
            import hashlib
            digest = hashlib.sha256()
            for offset in range(0, h.get_size(), 16 << 20):
                digest.update(h.pread(16 << 20, offset))
            print("sha256", digest.hexdigest())
            """);
    Matcher m = Pattern.compile("sha256 ([0-9a-f]{64})").matcher(out);
    assertTrue(m.find(), out);
    return m.group(1);
  }

  /** The daemon's {@code /metrics}, over HTTPS with the admin's certificate. */
  private static String metrics() throws Exception {
    SSLContext tls = TlsContexts.jdkClient(CertificateFiles.client(clientDir("admin")));
    try (HttpClient http = HttpClient.newBuilder().sslContext(tls).build()) {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + metricsPort + "/metrics"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, response.statusCode(), response.body());
      return response.body();
    }
  }

  /**
   * Scrapes until {@code series} sums to {@code expected} (store meters come from shard snapshots
   * up to a second old) and returns that scrape; fails after 10 s with the last one.
   */
  private static String awaitMetric(String series, double expected) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    String text = metrics();
    while (Scrape.sum(text, series) != expected && System.nanoTime() < deadline) {
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos()); // the snapshot's age, not an event
      text = metrics();
    }
    assertEquals(expected, Scrape.sum(text, series), text);
    return text;
  }

  private static double delta(String before, String after, String series) {
    return Scrape.sum(after, series) - Scrape.sum(before, series);
  }

  /** The data extents of {@code nbdinfo --map} output, as "start+length" words. */
  private static List<String> nbdinfoData(String map) {
    List<String> data = new ArrayList<>();
    for (String line : map.strip().split("\n")) {
      String[] w = line.strip().split("\\s+");
      if (w.length >= 3 && w[2].equals("0")) {
        data.add(w[0] + "+" + w[1]);
      }
    }
    return data;
  }

  /** The data extents of {@code qemu-img map --output=json}, as "start+length" words. */
  private static List<String> qemuData(String json) {
    List<String> data = new ArrayList<>();
    Matcher m =
        Pattern.compile("\"start\": (\\d+), \"length\": (\\d+),[^}]*\"data\": true").matcher(json);
    while (m.find()) {
      data.add(m.group(1) + "+" + m.group(2));
    }
    return data;
  }

  /**
   * The first four extents of {@code extents}, failing with {@code output} when there are fewer.
   */
  private static List<String> firstFour(List<String> extents, String output) {
    assertTrue(extents.size() >= 4, "fewer than 4 data extents in " + output);
    return extents.subList(0, 4);
  }

  @Test
  void mapsShowTheHolesOfAThinImageAndCopiesStaySparse() throws Exception {
    nbdsh(
        "vol",
        "admin",
        """
        h.pwrite(b"\\x11" * 8192, 0)
        h.pwrite(b"\\x22" * 4096, 5 << 20)
        h.pwrite(b"\\x33" * 65536, 8 << 20)
        h.trim(4096, 0)                          # a punched block
        h.trim(16384, (8 << 20) + 16384)         # four punched blocks
        h.pwrite(b"\\x44" * 4096, 13 << 20)
        h.zero(4 << 20, 12 << 20)                # a removed object
        """);
    List<String> expected =
        List.of(
            "4096+4096", (5 * MIB) + "+4096", (8 * MIB) + "+16384", (8 * MIB + 32768) + "+32768");
    Result map = run(Map.of(), "nbdinfo", "--map", uri(port, "vol", "admin"));
    assertEquals(0, map.exit(), map.output());
    assertEquals(expected, firstFour(nbdinfoData(map.output()), map.output()), map.output());
    Result qemu =
        run(
            Map.of(),
            "qemu-img",
            "map",
            "--output=json",
            "--object",
            tlsCreds("admin"),
            "--image-opts",
            qemuImageOpts("vol"));
    assertEquals(0, qemu.exit(), qemu.output());
    assertEquals(expected, firstFour(qemuData(qemu.output()), qemu.output()), qemu.output());

    // qemu-img convert and nbdcopy skip the holes: their copies are sparse and equal.
    Path converted = dir.resolve("converted.raw");
    Result convert =
        run(
            Map.of(),
            "qemu-img",
            "convert",
            "--object",
            tlsCreds("admin"),
            "--image-opts",
            qemuImageOpts("vol"),
            "-O",
            "raw",
            converted.toString());
    assertEquals(0, convert.exit(), convert.output());
    Path copied = dir.resolve("copied.raw");
    Result copy = run(Map.of(), "nbdcopy", uri(port, "vol", "admin"), copied.toString());
    assertEquals(0, copy.exit(), copy.output());
    // Other tests write elsewhere in vol meanwhile: compare with the data the map reports.
    long data = 0;
    for (String extent : nbdinfoData(map.output())) {
      data += Long.parseLong(extent.substring(extent.indexOf('+') + 1));
    }
    for (Path file : List.of(converted, copied)) {
      assertEquals(64 * MIB, Files.size(file));
      Result stat = run(Map.of(), "stat", "-c", "%b %B", file.toString()); // the JDK cannot say
      String[] blocks = stat.output().strip().split(" ");
      long allocated = Long.parseLong(blocks[0]) * Long.parseLong(blocks[1]);
      assertTrue(allocated <= data + MIB, file + ": " + allocated + " bytes allocated for " + data);
    }
    assertEquals(-1, Files.mismatch(converted, copied));
    byte[] bytes = Files.readAllBytes(converted);
    assertEquals(0, bytes[0]);
    assertEquals(0x11, bytes[4096]);
    assertEquals(0x33, bytes[(int) (8 * MIB)]);
    assertEquals(0, bytes[(int) (8 * MIB) + 16384]);

    // And back into another image over TLS: the map of the copy shows the same data.
    Result back =
        run(
            Map.of(),
            "qemu-img",
            "convert",
            "-n",
            "-f",
            "raw",
            converted.toString(),
            "--object",
            tlsCreds("admin"),
            "--target-image-opts",
            qemuImageOpts("copy"));
    assertEquals(0, back.exit(), back.output());
    Result copyMap = run(Map.of(), "nbdinfo", "--map", uri(port, "copy", "admin"));
    assertEquals(
        expected, firstFour(nbdinfoData(copyMap.output()), copyMap.output()), copyMap.output());
  }

  @Test
  void fastZeroNeverWritesAndCachePrefetches() throws Exception {
    String out =
        nbdsh(
            "vol",
            "admin",
            """
            assert h.can_fast_zero() and h.can_cache() and h.can_zero() and h.can_trim()
            assert h.can_meta_context(nbd.CONTEXT_BASE_ALLOCATION)
            h.pwrite(b"\\x55" * 65536, 20 << 20)
            try:
                h.zero(1000, (20 << 20) + 100, nbd.CMD_FLAG_FAST_ZERO)
                raise SystemExit("an unaligned fast zero was accepted")
            except nbd.Error as e:
                assert e.errnum == errno.ENOTSUP, e.string
            assert h.pread(65536, 20 << 20) == b"\\x55" * 65536, "the refused zero wrote"
            h.zero(32768, (20 << 20) + 16384, nbd.CMD_FLAG_FAST_ZERO)
            h.cache(8 << 20, 16 << 20)
            seen = []
            def extents(context, offset, entries, err):
                seen.extend(entries)
                return 0
            h.block_status(65536, 20 << 20, extents)
            assert seen == [16384, 0, 32768, 3, 16384, 0], seen
            assert h.pread(65536, 20 << 20) == b"\\x55" * 16384 + bytes(32768) + b"\\x55" * 16384
            print("fast zero and cache ok")
            """);
    assertTrue(out.contains("fast zero and cache ok"), out);
  }

  @Test
  void fioWritesAndVerifiesOverNbds() throws Exception {
    RequiredTools.command("fio", "fio");
    // fio's nbd engine does not let libnbd read tls-certificates from the URI, so libnbd takes
    // its default directory: $HOME/.pki/libnbd, or /etc/pki/libnbd for root. As root, fio runs
    // as nobody with a HOME of its own rather than touching /etc.
    Path home = Files.createDirectories(dir.resolve("fio-home"));
    Path pki = Files.createDirectories(home.resolve(".pki/libnbd"));
    for (String f : List.of("ca-cert.pem", "client-cert.pem", "client-key.pem")) {
      Files.copy(clientDir("admin").resolve(f), pki.resolve(f));
    }
    List<String> command = new ArrayList<>();
    if ("root".equals(System.getProperty("user.name"))) {
      RequiredTools.command("setpriv", "util-linux");
      // Only the test's own directories are opened up to nobody, never anything above them.
      for (Path p = pki; p.startsWith(dir); p = p.getParent()) {
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
      }
      for (String f : List.of("ca-cert.pem", "client-cert.pem", "client-key.pem")) {
        Files.setPosixFilePermissions(pki.resolve(f), PosixFilePermissions.fromString("rw-r--r--"));
      }
      command.addAll(List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"));
    }
    command.addAll(
        List.of(
            "fio",
            "--name=nbds",
            "--ioengine=nbd",
            "--uri=nbds://127.0.0.1:" + port + "/vol",
            "--rw=randwrite",
            "--bs=4k",
            "--iodepth=8",
            "--offset=32m",
            "--size=4m",
            "--verify=crc32c",
            "--verify_fatal=1"));
    Result fio = run(Map.of("HOME", home.toString()), command.toArray(String[]::new));
    assertEquals(0, fio.exit(), fio.output());
    assertTrue(fio.output().contains("err= 0"), fio.output());
  }
}
