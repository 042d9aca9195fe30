package io.tidestore.osd.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Settings files in the style of {@code conf/tidestore.conf}: one {@code key = value} per line,
 * {@code #} starts a comment, keys are the command's long option names without the dashes.
 *
 * <p>A file named by {@code --conf FILE} is turned into {@code --key=value} arguments inserted
 * right after the subcommand, ahead of the user's own flags; with overwritten options allowed, the
 * command line therefore overrides the file, and picocli's own converters check every value, so a
 * bad value in the file fails exactly like a bad flag. Unknown keys fail here, with the line.
 */
public final class ConfFile {
  /** The option that names a settings file. */
  public static final String CONF_OPTION = "--conf";

  private ConfFile() {}

  /** A settings file that cannot be used; the message names the file and line. */
  public static final class ConfException extends Exception {
    private static final long serialVersionUID = 1L;

    public ConfException(String message) {
      super(message);
    }
  }

  /** One {@code key = value} entry and where it came from. */
  public record Entry(String key, String value, Path file, int line) {
    String argument() {
      return "--" + key + "=" + value;
    }
  }

  /**
   * Returns {@code args} with the entries of the {@code --conf} file (if any) spliced in after the
   * subcommand that takes it.
   */
  public static List<String> expandArguments(CommandLine root, List<String> args)
      throws ConfException {
    int subcommandIndex = -1;
    CommandLine sub = null;
    for (int i = 0; i < args.size(); i++) {
      CommandLine candidate = root.getSubcommands().get(args.get(i));
      if (candidate != null) {
        subcommandIndex = i;
        sub = candidate;
        break;
      }
    }
    if (sub == null || sub.getCommandSpec().findOption(CONF_OPTION) == null) {
      return args;
    }
    Path file = null;
    for (int i = subcommandIndex + 1; i < args.size(); i++) {
      String arg = args.get(i);
      if (arg.equals(CONF_OPTION) && i + 1 < args.size()) {
        file = Path.of(args.get(i + 1));
      } else if (arg.startsWith(CONF_OPTION + "=")) {
        file = Path.of(arg.substring(CONF_OPTION.length() + 1));
      }
    }
    if (file == null) {
      return args;
    }
    List<String> expanded = new ArrayList<>(args.subList(0, subcommandIndex + 1));
    for (Entry entry : read(file, sub.getCommandSpec()).values()) {
      expanded.add(entry.argument());
    }
    expanded.addAll(args.subList(subcommandIndex + 1, args.size()));
    return expanded;
  }

  /** Parses {@code file}, checking every key against the options {@code spec} takes. */
  public static Map<String, Entry> read(Path file, CommandSpec spec) throws ConfException {
    List<String> lines;
    try {
      lines = Utf8Lines.decode(Files.readAllBytes(file));
    } catch (IOException e) {
      throw new ConfException("cannot read settings file " + file + ": " + e);
    } catch (Utf8Lines.NotUtf8Exception e) {
      throw new ConfException(file + ":" + e.line() + ": not UTF-8");
    }
    Map<String, Entry> entries = new LinkedHashMap<>();
    for (int n = 0; n < lines.size(); n++) {
      String line = stripComment(lines.get(n)).strip();
      if (line.isEmpty()) {
        continue;
      }
      int eq = line.indexOf('=');
      String where = file + ":" + (n + 1);
      if (eq <= 0) {
        throw new ConfException(where + ": expected 'key = value', got '" + line + "'");
      }
      String key = line.substring(0, eq).strip();
      String value = line.substring(eq + 1).strip();
      OptionSpec option = spec.findOption("--" + key);
      if (option == null || key.equals("conf") || option.usageHelp() || option.versionHelp()) {
        throw new ConfException(
            where + ": unknown key '" + key + "'; known keys: " + String.join(", ", keys(spec)));
      }
      if (value.isEmpty()) {
        throw new ConfException(where + ": key '" + key + "' has no value");
      }
      if (entries.put(key, new Entry(key, value, file, n + 1)) != null) {
        throw new ConfException(where + ": key '" + key + "' is set twice");
      }
    }
    return entries;
  }

  /** The keys a settings file may hold for {@code spec}: its long options. */
  public static TreeSet<String> keys(CommandSpec spec) {
    TreeSet<String> keys = new TreeSet<>();
    for (OptionSpec option : spec.options()) {
      if (option.usageHelp() || option.versionHelp()) {
        continue;
      }
      String name = option.longestName();
      if (name.startsWith("--") && !name.equals(CONF_OPTION)) {
        keys.add(name.substring(2));
      }
    }
    return keys;
  }

  private static String stripComment(String line) {
    int hash = line.indexOf('#');
    return hash < 0 ? line : line.substring(0, hash);
  }
}
