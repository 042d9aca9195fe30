package io.tidestore.store.cache.sim;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.tidestore.store.testing.AllocationBound;
import io.tidestore.store.testing.LineErrors;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.StringReader;
import java.nio.charset.CharacterCodingException;
import java.util.function.LongConsumer;
import java.util.regex.Pattern;

/**
 * Fuzzes {@link TraceReader}, the reader of {@code tidestore cache-sim --trace FILE}: the input is
 * the trace, decoded as {@code Files.newBufferedReader} decodes a file (UTF-8, malformed input
 * reported). The contract (TraceReader, TraceFormat): a {@link TraceFormatException} naming the
 * source and a line of it, or the IOException of bytes that are not UTF-8; or the format its first
 * line says, with keys that are what the lines say: for a block list, one key per line that is not
 * blank or a comment, each line a plain decimal number (as the iolog's fields are read) equal to
 * its key; for an iolog, keys {@code file << 40 | block} with a file index below the number of
 * lines (each file is named on one). No other exception; allocation bounded by the trace's size. An
 * iolog line may touch up to 2^40 blocks, so the harness stops reading after 65,536 keys.
 */
class TraceReaderFuzzTest {
  private static final String SOURCE = "fuzz.trace";
  private static final Pattern DECIMAL = Pattern.compile("[0-9]+"); // leading zeros included
  private static final int MAX_KEYS = 1 << 16;

  @FuzzTest
  void read(byte[] input) {
    AllocationBound.check("cache trace", input.length, 1 << 20, 256, () -> exercise(input));
  }

  private static void exercise(byte[] input) {
    BufferedReader in =
        new BufferedReader(
            new InputStreamReader(new ByteArrayInputStream(input), UTF_8.newDecoder()));
    Keys keys = new Keys(input.length);
    TraceFormat format;
    try {
      format = TraceReader.read(in, SOURCE, keys);
    } catch (TraceFormatException e) {
      long lines = Math.max(1, LineErrors.lineCount(input)); // an empty trace is refused at line 1
      LineErrors.assertNamesLine(e.getMessage(), SOURCE, lines);
      assertTrue(e.getMessage().startsWith(SOURCE + ":" + e.line() + ": "), e.getMessage());
      return;
    } catch (CharacterCodingException e) {
      return; // not UTF-8: the reader's IOException, as for a file
    } catch (Keys.Enough e) {
      return; // a valid trace too long to follow to its end
    } catch (IOException e) {
      throw new AssertionError("reading from memory", e);
    }
    String text = new String(input, UTF_8); // it decoded strictly, so this is the same text
    String header = text.lines().findFirst().orElse("").strip();
    switch (format) {
      case FIO_IOLOG_V2 -> assertEquals("fio version 2 iolog", header);
      case FIO_IOLOG_V3 -> assertEquals("fio version 3 iolog", header);
      case BLOCKS -> assertBlockList(text, keys);
    }
    long lines = LineErrors.lineCount(input); // a file is named on a line
    for (int i = 0; i < keys.count; i++) {
      long key = keys.keys[i];
      assertTrue(key >= 0, "negative key " + key);
      if (format != TraceFormat.BLOCKS) {
        assertTrue((key >>> TraceReader.FILE_SHIFT) < lines, "file index of key " + key);
      }
    }
  }

  /** One key per number line, in order, each equal to its line's plain decimal number. */
  private static void assertBlockList(String text, Keys keys) {
    int next = 0;
    try (BufferedReader lines = new BufferedReader(new StringReader(text))) {
      for (String line; (line = lines.readLine()) != null; ) {
        String s = line.strip();
        if (s.isEmpty() || s.startsWith("#")) {
          continue;
        }
        assertTrue(DECIMAL.matcher(s).matches(), "not a block number, yet read: '" + line + "'");
        assertTrue(next < keys.count, "no key for '" + line + "'");
        assertEquals(Long.parseLong(s), keys.keys[next++], "key of '" + line + "'");
      }
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    assertEquals(next, keys.count, "keys without a line");
  }

  /** The keys read, up to {@link #MAX_KEYS}. */
  private static final class Keys implements LongConsumer {
    /** Thrown to stop a trace that touches more blocks than the harness follows. */
    static final class Enough extends RuntimeException {
      private static final long serialVersionUID = 1L;

      Enough() {
        super(null, null, false, false);
      }
    }

    final long[] keys;
    int count;

    Keys(int inputLength) {
      keys = new long[Math.min(MAX_KEYS, inputLength + 1)];
    }

    @Override
    public void accept(long key) {
      if (count == keys.length) {
        throw new Enough();
      }
      keys[count++] = key;
    }
  }
}
