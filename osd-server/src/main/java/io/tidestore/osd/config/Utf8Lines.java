package io.tidestore.osd.config;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The lines of a settings file, decoded strictly as UTF-8 one line at a time, so that bytes which
 * are not UTF-8 are refused with the number of their line. {@code Files.readAllLines} only says
 * "Input length = 1", naming neither the file nor the line, and its decoder reads ahead of the line
 * it returns, so the line cannot be recovered from where it stopped. Lines end as {@link
 * java.io.BufferedReader#readLine} ends them: at {@code \n}, {@code \r} or {@code \r\n}; neither
 * byte occurs inside a multi-byte UTF-8 sequence, so splitting before decoding is exact.
 */
public final class Utf8Lines {
  private Utf8Lines() {}

  /** A line that is not UTF-8. */
  public static final class NotUtf8Exception extends Exception {
    private static final long serialVersionUID = 1L;

    private final int line;

    NotUtf8Exception(int line, CharacterCodingException cause) {
      super("line " + line + " is not UTF-8 (" + cause + ")", cause);
      this.line = line;
    }

    /** The 1-based number of the first line that is not UTF-8. */
    public int line() {
      return line;
    }
  }

  /** Splits {@code bytes} into lines and decodes each; the terminators are not part of a line. */
  public static List<String> decode(byte[] bytes) throws NotUtf8Exception {
    CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder(); // reports malformed input
    List<String> lines = new ArrayList<>();
    int start = 0;
    for (int i = 0; i <= bytes.length; i++) {
      boolean end = i == bytes.length;
      if (!end && bytes[i] != '\n' && bytes[i] != '\r') {
        continue;
      }
      if (end && start == i) {
        break; // the last line was terminated: no empty line after it
      }
      try {
        lines.add(utf8.decode(ByteBuffer.wrap(bytes, start, i - start)).toString());
      } catch (CharacterCodingException e) {
        throw new NotUtf8Exception(lines.size() + 1, e);
      }
      if (!end && bytes[i] == '\r' && i + 1 < bytes.length && bytes[i + 1] == '\n') {
        i++;
      }
      start = i + 1;
    }
    return lines;
  }
}
