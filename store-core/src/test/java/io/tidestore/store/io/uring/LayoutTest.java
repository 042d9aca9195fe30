package io.tidestore.store.io.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tidestore.store.io.TestFiles;
import io.tidestore.store.testing.RequiredTools;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Every struct size and field offset we use, against the kernel ABI: first against the numbers of
 * include/uapi/linux/io_uring.h (fixed ABI, written out here), then, where a C compiler and the
 * installed kernel headers exist (linux-libc-dev, gcc), against offsetof() of the real header.
 */
class LayoutTest {
  /** struct io_uring_sqe field offsets from include/uapi/linux/io_uring.h. */
  private static final Map<String, Long> SQE = new LinkedHashMap<>();

  private static final Map<String, Long> CQE = new LinkedHashMap<>();
  private static final Map<String, Long> PARAMS = new LinkedHashMap<>();
  private static final Map<String, Long> SQ_OFF = new LinkedHashMap<>();
  private static final Map<String, Long> CQ_OFF = new LinkedHashMap<>();

  static {
    SQE.put("opcode", 0L);
    SQE.put("flags", 1L);
    SQE.put("ioprio", 2L);
    SQE.put("fd", 4L);
    SQE.put("off", 8L);
    SQE.put("addr", 16L);
    SQE.put("len", 24L);
    SQE.put("rw_flags", 28L);
    SQE.put("user_data", 32L);
    SQE.put("buf_index", 40L);
    SQE.put("personality", 42L);
    SQE.put("file_index", 44L);
    SQE.put("addr3", 48L);
    SQE.put("__pad2", 56L);
    CQE.put("user_data", 0L);
    CQE.put("res", 8L);
    CQE.put("flags", 12L);
    PARAMS.put("sq_entries", 0L);
    PARAMS.put("cq_entries", 4L);
    PARAMS.put("flags", 8L);
    PARAMS.put("features", 20L);
    PARAMS.put("sq_off", 40L);
    PARAMS.put("cq_off", 80L);
    SQ_OFF.put("head", 0L);
    SQ_OFF.put("tail", 4L);
    SQ_OFF.put("ring_mask", 8L);
    SQ_OFF.put("ring_entries", 12L);
    SQ_OFF.put("flags", 16L);
    SQ_OFF.put("dropped", 20L);
    SQ_OFF.put("array", 24L);
    CQ_OFF.put("head", 0L);
    CQ_OFF.put("tail", 4L);
    CQ_OFF.put("ring_mask", 8L);
    CQ_OFF.put("ring_entries", 12L);
    CQ_OFF.put("overflow", 16L);
    CQ_OFF.put("cqes", 20L);
    CQ_OFF.put("flags", 24L);
  }

  private static final String[] SQE_CONSTANTS = {
    "opcode",
    "flags",
    "ioprio",
    "fd",
    "off",
    "addr",
    "len",
    "rw_flags",
    "user_data",
    "buf_index",
    "personality",
    "file_index",
    "addr3",
    "__pad2"
  };

  private static final int[] SQE_CONSTANT_VALUES = {
    SqeLayout.OPCODE,
    SqeLayout.FLAGS,
    SqeLayout.IOPRIO,
    SqeLayout.FD,
    SqeLayout.OFF,
    SqeLayout.ADDR,
    SqeLayout.LEN,
    SqeLayout.RW_FLAGS,
    SqeLayout.USER_DATA,
    SqeLayout.BUF_INDEX,
    SqeLayout.PERSONALITY,
    SqeLayout.FILE_INDEX,
    SqeLayout.ADDR3,
    SqeLayout.PAD2
  };

  @Test
  void sqeMatchesTheKernelAbi() {
    assertEquals(64, SqeLayout.SIZE);
    assertEquals(64, SqeLayout.LAYOUT.byteSize());
    for (int i = 0; i < SQE_CONSTANTS.length; i++) {
      long expected = SQE.get(SQE_CONSTANTS[i]);
      assertEquals(expected, SQE_CONSTANT_VALUES[i], "constant for " + SQE_CONSTANTS[i]);
      assertEquals(expected, SqeLayout.offsetOf(SQE_CONSTANTS[i]), "layout of " + SQE_CONSTANTS[i]);
    }
  }

  @Test
  void cqeMatchesTheKernelAbi() {
    assertEquals(16, CqeLayout.SIZE);
    assertEquals(16, CqeLayout.LAYOUT.byteSize());
    assertEquals(CQE.get("user_data"), CqeLayout.USER_DATA);
    assertEquals(CQE.get("res"), CqeLayout.RES);
    assertEquals(CQE.get("flags"), CqeLayout.FLAGS);
    CQE.forEach((field, offset) -> assertEquals(offset, CqeLayout.offsetOf(field), field));
  }

  @Test
  void paramsAndRingOffsetsMatchTheKernelAbi() {
    assertEquals(120, ParamsLayout.SIZE);
    assertEquals(120, ParamsLayout.LAYOUT.byteSize());
    assertEquals(40, ParamsLayout.RING_OFFSETS_SIZE);
    assertEquals(40, ParamsLayout.SQ_OFFSETS.byteSize());
    assertEquals(40, ParamsLayout.CQ_OFFSETS.byteSize());
    PARAMS.forEach((field, offset) -> assertEquals(offset, ParamsLayout.offsetOf(field), field));
    assertEquals(PARAMS.get("sq_entries"), ParamsLayout.SQ_ENTRIES);
    assertEquals(PARAMS.get("cq_entries"), ParamsLayout.CQ_ENTRIES);
    assertEquals(PARAMS.get("flags"), ParamsLayout.FLAGS);
    assertEquals(PARAMS.get("features"), ParamsLayout.FEATURES);
    assertEquals(PARAMS.get("sq_off"), ParamsLayout.SQ_OFF);
    assertEquals(PARAMS.get("cq_off"), ParamsLayout.CQ_OFF);
    SQ_OFF.forEach(
        (field, offset) ->
            assertEquals(
                offset,
                ParamsLayout.SQ_OFFSETS.byteOffset(
                    java.lang.foreign.MemoryLayout.PathElement.groupElement(field)),
                "sq_off." + field));
    CQ_OFF.forEach(
        (field, offset) ->
            assertEquals(
                offset,
                ParamsLayout.CQ_OFFSETS.byteOffset(
                    java.lang.foreign.MemoryLayout.PathElement.groupElement(field)),
                "cq_off." + field));
    int[] sqConstants = {
      ParamsLayout.SQ_HEAD,
      ParamsLayout.SQ_TAIL,
      ParamsLayout.SQ_RING_MASK,
      ParamsLayout.SQ_RING_ENTRIES,
      ParamsLayout.SQ_FLAGS,
      ParamsLayout.SQ_DROPPED,
      ParamsLayout.SQ_ARRAY
    };
    int[] cqConstants = {
      ParamsLayout.CQ_HEAD,
      ParamsLayout.CQ_TAIL,
      ParamsLayout.CQ_RING_MASK,
      ParamsLayout.CQ_RING_ENTRIES,
      ParamsLayout.CQ_OVERFLOW,
      ParamsLayout.CQ_CQES,
      ParamsLayout.CQ_FLAGS
    };
    Long[] sqExpected = SQ_OFF.values().toArray(Long[]::new);
    Long[] cqExpected = CQ_OFF.values().toArray(Long[]::new);
    for (int i = 0; i < sqConstants.length; i++) {
      assertEquals(sqExpected[i], sqConstants[i], "sq constant " + i);
      assertEquals(cqExpected[i], cqConstants[i], "cq constant " + i);
    }
  }

  @Test
  void userDataRoundTrips() {
    long packed = UserData.pack(4095, UserData.PART_SYNC, IoUringAbi.IORING_OP_FSYNC);
    assertEquals(4095, UserData.slot(packed));
    assertEquals(UserData.PART_SYNC, UserData.part(packed));
    assertEquals(IoUringAbi.IORING_OP_FSYNC, UserData.opcode(packed));
  }

  /** offsetof() of the installed kernel header, when gcc and linux-libc-dev are present. */
  @Test
  void matchesTheInstalledKernelHeader() throws IOException, InterruptedException {
    Path header = Path.of("/usr/include/linux/io_uring.h");
    RequiredTools.file(header, "linux-libc-dev");
    RequiredTools.command("cc", "gcc");
    Path dir = TestFiles.createDirectory("tidestore-layout-");
    try {
      StringBuilder c = new StringBuilder();
      c.append("#include <stdio.h>\n#include <stddef.h>\n#include <linux/io_uring.h>\n");
      c.append("int main(void) {\n");
      c.append("printf(\"sqe.size %zu\\n\", sizeof(struct io_uring_sqe));\n");
      c.append("printf(\"cqe.size %zu\\n\", sizeof(struct io_uring_cqe));\n");
      c.append("printf(\"params.size %zu\\n\", sizeof(struct io_uring_params));\n");
      SQE.forEach((f, o) -> line(c, "sqe." + f, "struct io_uring_sqe", f));
      CQE.forEach((f, o) -> line(c, "cqe." + f, "struct io_uring_cqe", f));
      PARAMS.forEach((f, o) -> line(c, "params." + f, "struct io_uring_params", f));
      SQ_OFF.forEach((f, o) -> line(c, "sq_off." + f, "struct io_sqring_offsets", f));
      CQ_OFF.forEach((f, o) -> line(c, "cq_off." + f, "struct io_cqring_offsets", f));
      c.append(
          "printf(\"IORING_OP_READ %d\\nIORING_OP_WRITE %d\\nIORING_OP_READ_FIXED %d\\n"
              + "IORING_OP_WRITE_FIXED %d\\nIORING_OP_FSYNC %d\\n\", IORING_OP_READ,"
              + " IORING_OP_WRITE, IORING_OP_READ_FIXED, IORING_OP_WRITE_FIXED,"
              + " IORING_OP_FSYNC);\n");
      c.append(
          "printf(\"IORING_SETUP_DEFER_TASKRUN %d\\nIORING_SETUP_SINGLE_ISSUER %d\\n"
              + "IORING_OFF_CQ_RING %lld\\nIORING_OFF_SQES %lld\\n\", IORING_SETUP_DEFER_TASKRUN,"
              + " IORING_SETUP_SINGLE_ISSUER, (long long) IORING_OFF_CQ_RING,"
              + " (long long) IORING_OFF_SQES);\n");
      c.append("return 0; }\n");
      Path source = dir.resolve("layout.c");
      Path binary = dir.resolve("layout");
      Files.writeString(source, c);
      run("/usr/bin/cc", "-o", binary.toString(), source.toString());
      Map<String, Long> actual = new LinkedHashMap<>();
      for (String line : run(binary.toString()).split("\n", -1)) {
        if (line.isBlank()) {
          continue;
        }
        String[] parts = line.trim().split(" ", 2);
        actual.put(parts[0], Long.parseLong(parts[1]));
      }
      assertEquals(64L, actual.get("sqe.size"));
      assertEquals(16L, actual.get("cqe.size"));
      assertEquals(120L, actual.get("params.size"));
      SQE.forEach((f, o) -> assertEquals(o, actual.get("sqe." + f), "sqe." + f));
      CQE.forEach((f, o) -> assertEquals(o, actual.get("cqe." + f), "cqe." + f));
      PARAMS.forEach((f, o) -> assertEquals(o, actual.get("params." + f), "params." + f));
      SQ_OFF.forEach((f, o) -> assertEquals(o, actual.get("sq_off." + f), "sq_off." + f));
      CQ_OFF.forEach((f, o) -> assertEquals(o, actual.get("cq_off." + f), "cq_off." + f));
      assertEquals((long) IoUringAbi.IORING_OP_READ, actual.get("IORING_OP_READ"));
      assertEquals((long) IoUringAbi.IORING_OP_WRITE, actual.get("IORING_OP_WRITE"));
      assertEquals((long) IoUringAbi.IORING_OP_READ_FIXED, actual.get("IORING_OP_READ_FIXED"));
      assertEquals((long) IoUringAbi.IORING_OP_WRITE_FIXED, actual.get("IORING_OP_WRITE_FIXED"));
      assertEquals((long) IoUringAbi.IORING_OP_FSYNC, actual.get("IORING_OP_FSYNC"));
      assertEquals(
          (long) IoUringAbi.IORING_SETUP_DEFER_TASKRUN, actual.get("IORING_SETUP_DEFER_TASKRUN"));
      assertEquals(
          (long) IoUringAbi.IORING_SETUP_SINGLE_ISSUER, actual.get("IORING_SETUP_SINGLE_ISSUER"));
      assertEquals(IoUringAbi.IORING_OFF_CQ_RING, actual.get("IORING_OFF_CQ_RING"));
      assertEquals(IoUringAbi.IORING_OFF_SQES, actual.get("IORING_OFF_SQES"));
    } finally {
      TestFiles.deleteRecursively(dir);
    }
  }

  private static void line(StringBuilder c, String key, String struct, String field) {
    c.append("printf(\"")
        .append(key)
        .append(" %zu\\n\", offsetof(")
        .append(struct)
        .append(", ")
        .append(field)
        .append("));\n");
  }

  private static String run(String... command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    byte[] out = process.getInputStream().readAllBytes();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("timed out: " + String.join(" ", command));
    }
    String text = new String(out, StandardCharsets.UTF_8);
    assertEquals(0, process.exitValue(), String.join(" ", command) + ":\n" + text);
    return text;
  }
}
