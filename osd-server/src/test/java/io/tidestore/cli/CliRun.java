package io.tidestore.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** The tidestore command line run in-process, with its exit code and what it printed. */
record CliRun(int exit, String out, String err) {
  static CliRun of(String... args) {
    CommandLine cli = TidestoreMain.newCommandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    int exit = cli.execute(args);
    return new CliRun(exit, out.toString(), err.toString());
  }
}
