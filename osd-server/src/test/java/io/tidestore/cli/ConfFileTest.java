package io.tidestore.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.osd.config.ConfFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ConfFileTest {
  @TempDir Path dir;

  private OsdCommand parse(String... args) throws Exception {
    CommandLine cli = TidestoreMain.newCommandLine();
    List<String> expanded = ConfFile.expandArguments(cli, List.of(args));
    CommandLine.ParseResult result = cli.parseArgs(expanded.toArray(String[]::new));
    return (OsdCommand) result.subcommand().commandSpec().userObject();
  }

  @Test
  void embeddedDefaultsWithoutAFile() throws Exception {
    OsdCommand osd = parse("osd");
    assertEquals(Path.of("var", "osd.0"), osd.data);
    assertEquals("127.0.0.1", osd.listen);
    assertEquals(9283, osd.metricsPort);
  }

  @Test
  void fileSetsValuesAndFlagsOverrideIt() throws Exception {
    Path conf = dir.resolve("t.conf");
    Files.writeString(conf, "# comment\n\ndata = /srv/x   # trailing\nmetrics-port=9999\n");
    OsdCommand fromFile = parse("osd", "--conf", conf.toString());
    assertEquals(Path.of("/srv/x"), fromFile.data);
    assertEquals(9999, fromFile.metricsPort);

    OsdCommand overridden = parse("osd", "--metrics-port", "7000", "--conf=" + conf);
    assertEquals(7000, overridden.metricsPort);
    assertEquals(Path.of("/srv/x"), overridden.data);
  }

  @Test
  void unknownKeyNamesFileLineAndKnownKeys() throws Exception {
    Path conf = dir.resolve("t.conf");
    Files.writeString(conf, "data = /x\nbogus = 1\n");
    var e =
        assertThrows(ConfFile.ConfException.class, () -> parse("osd", "--conf", conf.toString()));
    assertTrue(e.getMessage().contains(conf + ":2: unknown key 'bogus'"), e.getMessage());
    assertTrue(e.getMessage().contains("metrics-port"), e.getMessage());
  }

  @Test
  void badValueIsAParameterError() throws Exception {
    Path conf = dir.resolve("t.conf");
    Files.writeString(conf, "metrics-port = lots\n");
    assertThrows(
        CommandLine.ParameterException.class, () -> parse("osd", "--conf", conf.toString()));
  }

  @Test
  void malformedLinesAndDuplicatesAreRejected() throws Exception {
    Path conf = dir.resolve("t.conf");
    Files.writeString(conf, "just words\n");
    assertThrows(ConfFile.ConfException.class, () -> parse("osd", "--conf", conf.toString()));
    Files.writeString(conf, "data = /a\ndata = /b\n");
    assertThrows(ConfFile.ConfException.class, () -> parse("osd", "--conf", conf.toString()));
  }

  @Test
  void shippedConfFileParses() throws Exception {
    Path shipped = Path.of("..", "conf", "tidestore.conf");
    OsdCommand osd = parse("osd", "--conf", shipped.toString());
    assertEquals("127.0.0.1", osd.listen);
  }

  @Test
  void everyLevelHasHelpAndVersion() {
    for (String[] args :
        new String[][] {
          {"--help"}, {"--version"}, {"osd", "--help"}, {"osd", "--version"}, {"version", "--help"}
        }) {
      assertEquals(0, TidestoreMain.run(args), String.join(" ", args));
    }
  }

  @Test
  void badPortIsAUsageError() {
    assertEquals(2, TidestoreMain.run("osd", "--metrics-port", "70000"));
  }

  @Test
  void reactorAndListenerOptionsFromFileAndFlags() throws Exception {
    OsdCommand defaults = parse("osd");
    assertEquals(6800, defaults.port);
    assertEquals(10809, defaults.nbdPort);
    assertEquals(0, defaults.reactors);
    assertEquals(io.tidestore.osd.cpu.CpuPolicy.BALANCED, defaults.cpuPolicy);
    assertEquals(io.tidestore.osd.reactor.Transport.EPOLL, defaults.transport);

    Path conf = dir.resolve("r.conf");
    Files.writeString(conf, "reactors = 3\ncpu-policy = none\ntransport = io_uring\nport = 7000\n");
    OsdCommand fromFile = parse("osd", "--conf", conf.toString(), "--nbd-port", "0");
    assertEquals(3, fromFile.reactors);
    assertEquals(io.tidestore.osd.cpu.CpuPolicy.NONE, fromFile.cpuPolicy);
    assertEquals(io.tidestore.osd.reactor.Transport.IO_URING, fromFile.transport);
    assertEquals(7000, fromFile.port);
    assertEquals(0, fromFile.nbdPort);

    assertThrows(CommandLine.ParameterException.class, () -> parse("osd", "--transport", "kqueue"));
    assertThrows(
        CommandLine.ParameterException.class, () -> parse("osd", "--cpu-policy", "socket"));
  }

  @Test
  void engineOptionsFromFileAndBadOnesAreUsageErrors() throws Exception {
    OsdCommand defaults = parse("osd");
    assertEquals("reactor", defaults.engineOptions.engine);
    // Ceph's ms_async_op_threads, osd_op_num_shards and osd_op_num_threads_per_shard (SSD).
    assertEquals(3, defaults.engineOptions.msgrThreads);
    assertEquals(8, defaults.engineOptions.opShards);
    assertEquals(2, defaults.engineOptions.opThreadsPerShard);

    Path conf = dir.resolve("e.conf");
    Files.writeString(
        conf, "engine = classic\nmsgr-threads = 2\nop-shards = 4\nop-threads-per-shard = 3\n");
    OsdCommand fromFile = parse("osd", "--conf", conf.toString());
    assertEquals("classic", fromFile.engineOptions.engine);
    assertEquals(2, fromFile.engineOptions.msgrThreads);
    assertEquals(4, fromFile.engineOptions.opShards);
    assertEquals(3, fromFile.engineOptions.opThreadsPerShard);

    // Checked when the settings are built: exit 2 before anything starts.
    assertEquals(2, TidestoreMain.run("osd", "--engine", "seastar"));
    assertEquals(2, TidestoreMain.run("osd", "--engine", "classic", "--msgr-threads", "0"));
    assertEquals(2, TidestoreMain.run("osd", "--engine", "classic", "--op-shards", "0"));
    assertEquals(2, TidestoreMain.run("osd", "--engine", "classic", "--op-threads-per-shard", "0"));
  }

  @Test
  void theRemovedOpThreadsIsAnErrorNamingItsReplacements() throws Exception {
    CliRun flag = CliRun.of("osd", "--engine", "classic", "--op-threads", "4");
    assertEquals(2, flag.exit(), flag.err());
    assertTrue(flag.err().contains("--op-threads (conf key op-threads) was removed"), flag.err());
    assertTrue(flag.err().contains("--op-shards"), flag.err());
    assertTrue(flag.err().contains("--op-threads-per-shard"), flag.err());

    // The conf key is still known (so the file does not fail as "unknown key"), and refused.
    Path conf = dir.resolve("old.conf");
    Files.writeString(conf, "engine = classic\nop-threads = 4\n");
    assertEquals("4", parse("osd", "--conf", conf.toString()).engineOptions.removedOpThreads);
    assertEquals(2, TidestoreMain.run("osd", "--conf", conf.toString()));
  }

  @Test
  void theRemovedIoThreadsIsAnErrorNamingItsReplacements() throws Exception {
    CliRun flag = CliRun.of("osd", "--engine", "classic", "--io-threads", "2");
    assertEquals(2, flag.exit(), flag.err());
    assertTrue(flag.err().contains("--io-threads (conf key io-threads) was removed"), flag.err());
    assertTrue(flag.err().contains("--msgr-threads"), flag.err());
    assertTrue(flag.err().contains("--op-shards"), flag.err());
    assertTrue(flag.err().contains("--op-threads-per-shard"), flag.err());

    Path conf = dir.resolve("old-io.conf");
    Files.writeString(conf, "engine = classic\nio-threads = 1\n");
    assertEquals("1", parse("osd", "--conf", conf.toString()).engineOptions.removedIoThreads);
    assertEquals(2, TidestoreMain.run("osd", "--conf", conf.toString()));
  }
}
