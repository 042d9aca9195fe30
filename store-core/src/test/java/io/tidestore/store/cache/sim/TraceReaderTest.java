package io.tidestore.store.cache.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TraceReaderTest {
  @TempDir Path dir;

  private long[] read(String text, TraceFormat expected) throws IOException {
    Path f = dir.resolve("t.trace");
    Files.writeString(f, text);
    List<Long> out = new ArrayList<>();
    assertEquals(expected, TraceReader.read(f, out::add));
    return out.stream().mapToLong(Long::longValue).toArray();
  }

  private TraceFormatException bad(String text) {
    Path f = dir.resolve("bad.trace");
    try {
      Files.writeString(f, text);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    return assertThrows(TraceFormatException.class, () -> TraceReader.read(f, b -> {}));
  }

  @Test
  void blockPerLineSkipsBlanksAndComments() throws IOException {
    assertArrayEquals(
        new long[] {5, 0, 12345678901L, 5},
        read("5\n\n# a comment\n0\n  12345678901  \n5\n", TraceFormat.BLOCKS));
  }

  @Test
  void badBlockLinesNameTheirLineNumber() {
    var e = bad("1\n2\nthree\n4\n");
    assertEquals(3, e.line());
    assertTrue(e.getMessage().endsWith("bad.trace:3: not a block number: 'three'"), e.getMessage());
    assertEquals(2, bad("1\n-7\n").line());
    assertEquals(1, bad("").line());
  }

  @Test
  void fioIologV2ExpandsOffsetsToBlocks() throws IOException {
    String log =
        """
        fio version 2 iolog
        /dev/nbd0 add
        /dev/nbd0 open
        /dev/nbd0 read 8192 4096
        /dev/nbd0 write 4096 12288
        /dev/nbd0 read 6000 100
        /dev/nbd0 sync 0 0
        /dev/nbd0 trim 0 4096
        /dev/nbd1 read 0 4096
        /dev/nbd0 close
        """;
    // 8192+4096 -> block 2; 4096+12288 -> 1,2,3; 6000+100 -> 1; nbd1 block 0 is file 1.
    assertArrayEquals(
        new long[] {2, 1, 2, 3, 1, 1L << TraceReader.FILE_SHIFT},
        read(log, TraceFormat.FIO_IOLOG_V2));
  }

  @Test
  void fioIologV3IgnoresTimestamps() throws IOException {
    String log =
        """
        fio version 3 iolog
        0 /tmp/f add
        10 /tmp/f open
        20 /tmp/f read 65536 65536
        30 /tmp/f write 0 4096
        40 /tmp/f close
        """;
    long[] blocks = read(log, TraceFormat.FIO_IOLOG_V3);
    assertEquals(17, blocks.length);
    assertEquals(16, blocks[0]);
    assertEquals(31, blocks[15]);
    assertEquals(0, blocks[16]);
  }

  @Test
  void badIologLinesNameTheirLineNumber() {
    var action = bad("fio version 2 iolog\n/f add\n/f frobnicate 0 4096\n");
    assertEquals(3, action.line());
    assertTrue(action.getMessage().contains("bad iolog action 'frobnicate'"), action.getMessage());
    var offset = bad("fio version 2 iolog\n/f read 12x 4096\n");
    assertTrue(offset.getMessage().contains(":2: bad offset '12x'"), offset.getMessage());
    var fields = bad("fio version 2 iolog\n/f read 0\n");
    assertTrue(fields.getMessage().contains("expected 'FILE ACTION [OFFSET LENGTH]'"));
    var time = bad("fio version 3 iolog\nsoon /f read 0 4096\n");
    assertTrue(time.getMessage().contains(":2: bad timestamp"), time.getMessage());
    var v4 = bad("fio version 4 iolog\n");
    assertTrue(v4.getMessage().contains("unsupported fio iolog version"), v4.getMessage());
  }

  @Test
  void missingFileIsAClearError() {
    var e =
        assertThrows(
            NoSuchFileException.class, () -> TraceReader.read(dir.resolve("nope.trace"), b -> {}));
    assertTrue(e.getMessage().contains("trace file not found"), e.getMessage());
  }
}
