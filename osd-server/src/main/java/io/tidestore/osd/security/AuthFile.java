package io.tidestore.osd.security;

import io.tidestore.osd.config.Utf8Lines;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The daemon's {@code --auth-file}: one grant per line, {@code NAME allow r|rw|* [image=IMAGE]
 * [pool=POOL]}, where NAME is the common name of a client's certificate; {@code #} starts a
 * comment. A client may have several lines; it gets their union. A client the file does not name,
 * or one without a certificate, may do nothing. Read once at startup; immutable.
 */
public final class AuthFile {
  /**
   * What a pool may be called (the cluster map's rule, {@code MapChanges}): a grant for a pool no
   * pool can be named after would silently grant nothing.
   */
  private static final Pattern POOL_NAME = Pattern.compile("[A-Za-z0-9_.\\-]{1,64}");

  private final Path path;
  private final Map<String, List<Grant>> grants;

  private AuthFile(Path path, Map<String, List<Grant>> grants) {
    this.path = path;
    this.grants = grants;
  }

  /** Parses {@code path}; the message of a refusal names the file, the line and what is wrong. */
  public static AuthFile read(Path path) throws IOException {
    List<String> lines;
    try {
      lines = Utf8Lines.decode(Files.readAllBytes(path));
    } catch (IOException e) {
      throw new IOException("--auth-file " + path + ": cannot read it: " + e.getMessage(), e);
    } catch (Utf8Lines.NotUtf8Exception e) {
      throw new IOException(path + ":" + e.line() + ": not UTF-8", e);
    }
    return parse(path, lines);
  }

  static AuthFile parse(Path path, List<String> lines) throws IOException {
    Map<String, List<Grant>> grants = new LinkedHashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      int hash = line.indexOf('#');
      String text = (hash >= 0 ? line.substring(0, hash) : line).strip();
      if (text.isEmpty()) {
        continue;
      }
      String where = path + ":" + (i + 1) + ": ";
      String[] words = text.split("\\s+");
      if (words.length < 3 || !words[1].equals("allow")) {
        throw new IOException(where + "expected 'NAME allow r|rw|* [image=NAME] [pool=NAME]'");
      }
      Access access = Access.parse(words[2]);
      if (access == null) {
        throw new IOException(where + "access must be r, rw or *, got '" + words[2] + "'");
      }
      String image = null;
      String pool = null;
      for (int w = 3; w < words.length; w++) {
        String word = words[w];
        if (word.startsWith("image=") && image == null && word.length() > 6) {
          image = word.substring(6);
        } else if (word.startsWith("pool=") && pool == null && word.length() > 5) {
          pool = word.substring(5);
        } else {
          throw new IOException(
              where + "'" + word + "' is not image=NAME or pool=NAME (each at most once)");
        }
      }
      if (image != null && !ImageObjects.validImageName(image)) {
        throw new IOException(
            where + "image=" + image + " is not an image name (1-64 of A-Z a-z 0-9 _ -)");
      }
      if (pool != null && !POOL_NAME.matcher(pool).matches()) {
        throw new IOException(
            where + "pool=" + pool + " is not a pool name (1-64 of A-Z a-z 0-9 _ . -)");
      }
      grants.computeIfAbsent(words[0], k -> new ArrayList<>()).add(new Grant(access, image, pool));
    }
    return new AuthFile(path, grants);
  }

  /** The caps of the client whose certificate's CN is {@code identity} (null: none). */
  public Caps caps(String identity) {
    List<Grant> g = identity == null ? null : grants.get(identity);
    return g == null ? Caps.none(identity) : new Caps(identity, g);
  }

  public Path path() {
    return path;
  }

  /** Clients named in the file. */
  public int clients() {
    return grants.size();
  }
}
