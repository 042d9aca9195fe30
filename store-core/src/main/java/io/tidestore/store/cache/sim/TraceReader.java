package io.tidestore.store.cache.sim;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongConsumer;
import java.util.regex.Pattern;

/**
 * Reads a cache trace as a stream of 4 KiB block keys.
 *
 * <p>fio iolog lines follow fio's {@code iolog.c} ({@code read_iolog2}): four fields (v3: five,
 * with a leading timestamp) for {@code read write sync datasync trim wait}, two (v3: three) for
 * {@code add open close}. A read or write of LENGTH bytes at OFFSET touches blocks OFFSET/4096
 * through (OFFSET+LENGTH-1)/4096, one access each; the other actions touch no cached data. Blocks
 * of different files get different keys: the file's index (in order of first mention) in the high
 * bits, {@code index << 40 | block} (a 4 EiB file would collide; fio's files are far smaller).
 * Unlike fio, which logs and skips a bad line, a bad line is an error naming its line number.
 *
 * <p>Not thread-safe; one reader per trace.
 */
final class TraceReader {
  private static final String V2_HEADER = "fio version 2 iolog";
  private static final String V3_HEADER = "fio version 3 iolog";
  static final int FILE_SHIFT = 40;
  private static final Pattern FIELDS = Pattern.compile("\\s+");

  private TraceReader() {}

  /** Detects the format from the first line and feeds every block key to {@code sink}. */
  public static TraceFormat read(Path file, LongConsumer sink) throws IOException {
    BufferedReader in;
    try {
      in = Files.newBufferedReader(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new NoSuchFileException(file.toString(), null, "trace file not found");
    }
    try (in) {
      return read(in, file.toString(), sink);
    }
  }

  /**
   * As {@link #read(Path, LongConsumer)}, from an open reader; {@code source} names it in errors.
   */
  public static TraceFormat read(BufferedReader in, String source, LongConsumer sink)
      throws IOException {
    String first = in.readLine();
    if (first == null) {
      throw new TraceFormatException(source, 1, "empty trace", "");
    }
    String header = first.strip();
    if (header.equals(V2_HEADER)) {
      readIolog(in, source, sink, false);
      return TraceFormat.FIO_IOLOG_V2;
    }
    if (header.equals(V3_HEADER)) {
      readIolog(in, source, sink, true);
      return TraceFormat.FIO_IOLOG_V3;
    }
    if (header.startsWith("fio version")) {
      throw new TraceFormatException(
          source, 1, "unsupported fio iolog version (expected 2 or 3)", header);
    }
    blockLine(first, 1, source, sink);
    String line;
    long n = 1;
    while ((line = in.readLine()) != null) {
      blockLine(line, ++n, source, sink);
    }
    return TraceFormat.BLOCKS;
  }

  private static void blockLine(String raw, long n, String source, LongConsumer sink)
      throws TraceFormatException {
    String line = raw.strip();
    if (line.isEmpty() || line.startsWith("#")) {
      return;
    }
    // Plain decimal digits, as the iolog's fields: Long.parseLong alone would also take a sign
    // and other scripts' digits ("+7", or 7 in Arabic-Indic digits, read as block 7).
    if (!isUnsigned(line)) {
      throw new TraceFormatException(source, n, "not a block number", raw);
    }
    long block;
    try {
      block = Long.parseLong(line);
    } catch (NumberFormatException e) {
      throw new TraceFormatException(source, n, "block number too large", raw);
    }
    sink.accept(block);
  }

  private static void readIolog(BufferedReader in, String source, LongConsumer sink, boolean v3)
      throws IOException {
    Map<String, Integer> files = new HashMap<>();
    String line;
    long n = 1;
    int skip = v3 ? 1 : 0; // v3 lines lead with a timestamp
    while ((line = in.readLine()) != null) {
      n++;
      String stripped = line.strip();
      if (stripped.isEmpty()) {
        continue;
      }
      String[] f = FIELDS.split(stripped, -1);
      if (v3 && !isUnsigned(f[0])) {
        throw new TraceFormatException(source, n, "bad timestamp in fio iolog v3 line", line);
      }
      int fields = f.length - skip;
      if (fields == 4) {
        String action = f[skip + 1];
        switch (action) {
          case "read", "write" -> {
            long offset = unsigned(f[skip + 2], source, n, line, "offset");
            long length = unsigned(f[skip + 3], source, n, line, "length");
            if (length > 0) {
              long fileBits = (long) fileIndex(files, f[skip]) << FILE_SHIFT;
              long firstBlock = offset >>> 12;
              long lastBlock = (offset + length - 1) >>> 12;
              if (lastBlock >= 1L << FILE_SHIFT) {
                throw new TraceFormatException(source, n, "offset beyond 4 EiB", line);
              }
              for (long b = firstBlock; b <= lastBlock; b++) {
                sink.accept(fileBits | b);
              }
            }
          }
          case "sync", "datasync", "trim", "wait" -> {
            unsigned(f[skip + 2], source, n, line, "offset");
            unsigned(f[skip + 3], source, n, line, "length");
          }
          default ->
              throw new TraceFormatException(source, n, "bad iolog action '" + action + "'", line);
        }
      } else if (fields == 2) {
        String action = f[skip + 1];
        switch (action) {
          case "add", "open", "close" -> fileIndex(files, f[skip]);
          default ->
              throw new TraceFormatException(source, n, "bad iolog action '" + action + "'", line);
        }
      } else {
        throw new TraceFormatException(
            source,
            n,
            "expected "
                + (v3 ? "'TIME FILE ACTION [OFFSET LENGTH]'" : "'FILE ACTION [OFFSET LENGTH]'"),
            line);
      }
    }
  }

  private static int fileIndex(Map<String, Integer> files, String name) {
    return files.computeIfAbsent(name, k -> files.size());
  }

  private static boolean isUnsigned(String s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }

  private static long unsigned(String s, String source, long n, String line, String what)
      throws TraceFormatException {
    if (!isUnsigned(s)) {
      throw new TraceFormatException(source, n, "bad " + what + " '" + s + "'", line);
    }
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      throw new TraceFormatException(source, n, what + " too large '" + s + "'", line);
    }
  }
}
