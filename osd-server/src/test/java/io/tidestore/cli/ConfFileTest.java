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
}
