package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.tidestore.client.ShardAwareClient;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon formats an empty or absent data directory itself (with --shards/--shard-size), serves
 * objects from the new store at once, and keeps it on the next start; a directory holding other
 * files is never formatted.
 */
class FirstStartMkfsIT {
  private static final Duration STOP = Duration.ofSeconds(30);
  private static final Pattern OBJECT_PORT = Pattern.compile("object=(\\d+)");

  @TempDir Path dir;

  private static OsdProcess start(Path data) throws Exception {
    return OsdProcess.startOsd(
        data, "--reactors", "2", "--shards", "3", "--shard-size", "16m", "--cache-size", "16m");
  }

  private static InetSocketAddress objectAddress(OsdProcess osd) throws Exception {
    Matcher m = OBJECT_PORT.matcher(osd.awaitLine("tidestore osd ready", STOP));
    assertTrue(m.find(), osd.output());
    return new InetSocketAddress("127.0.0.1", Integer.parseInt(m.group(1)));
  }

  @Test
  void anAbsentDataDirIsFormattedAndServesObjectsAcrossRestarts() throws Exception {
    Path data = dir.resolve("fresh/osd.0");
    byte[] content = new byte[100_000];
    for (int i = 0; i < content.length; i++) {
      content[i] = (byte) (i * 31 + 7);
    }
    try (MultiThreadIoEventLoopGroup group =
        new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory())) {
      try (OsdProcess osd = start(data)) {
        osd.awaitReady();
        assertTrue(
            osd.output().contains("created an object store in the empty data directory " + data),
            osd.output());
        assertTrue(osd.output().contains("3 shards of 16777216 bytes"), osd.output());
        assertTrue(osd.output().contains("object store: 3 shards"), osd.output());
        try (ShardAwareClient client =
            ShardAwareClient.connect(group, EpollSocketChannel.class, objectAddress(osd))
                .get(30, TimeUnit.SECONDS)) {
          client.write("first", 0, Unpooled.wrappedBuffer(content)).get(30, TimeUnit.SECONDS);
          assertArrayEquals(content, read(client, content.length));
        }
        osd.signal("TERM");
        assertEquals(0, osd.awaitExit(STOP), osd.output());
      }
      // One volume of 3 spaces; whole segments only: a space is at most --shard-size, short of
      // it by < 1 segment.
      long size = Files.size(data.resolve("volume"));
      assertTrue(size > 3 * (15L << 20) && size <= 3 * (16L << 20), "volume: " + size);
      assertFalse(Files.exists(data.resolve("shard-0")));
      try (OsdProcess osd = start(data)) {
        osd.awaitReady();
        assertFalse(osd.output().contains("created an object store"), osd.output());
        try (ShardAwareClient client =
            ShardAwareClient.connect(group, EpollSocketChannel.class, objectAddress(osd))
                .get(30, TimeUnit.SECONDS)) {
          assertArrayEquals(content, read(client, content.length));
        }
        osd.signal("TERM");
        assertEquals(0, osd.awaitExit(STOP), osd.output());
      }
    }
  }

  @Test
  void aDataDirHoldingOtherFilesIsRefusedAndLeftAlone() throws Exception {
    Path data = dir.resolve("busy");
    Files.createDirectories(data);
    Files.writeString(data.resolve("notes.txt"), "keep me");
    try (OsdProcess osd = start(data)) {
      assertEquals(1, osd.awaitExit(STOP), osd.output());
      assertTrue(
          osd.output().contains("holds no Tidestore store but is not empty (notes.txt)"),
          osd.output());
    }
    assertEquals("keep me", Files.readString(data.resolve("notes.txt")));
    assertFalse(Files.exists(data.resolve("volume")));
  }

  /**
   * kill -9 while mkfs preallocates (the daemon's first start, then tidestore mkfs) leaves a
   * directory that fsck refuses with what to do, and that the next start or mkfs formats again: a
   * systemd unit with Restart= recovers by itself.
   */
  @Test
  void aMkfsKilledWhilePreallocatingIsRedoneByTheNextStartOrMkfs() throws Exception {
    // O_DIRECT needs a real file system, and these shards are big; /tmp may be tmpfs.
    Path root = Files.createTempDirectory(Path.of("/var/tmp"), "first-start-kill");
    try {
      Path data = root.resolve("osd.0");
      try (OsdProcess osd =
          OsdProcess.startOsd(
              data,
              "--reactors",
              "2",
              "--shards",
              "2",
              "--shard-size",
              "512m",
              "--cache-size",
              "16m")) {
        killOncePreallocating(osd, data);
      }
      try (OsdProcess fsck = OsdProcess.start("fsck", "--data", data.toString())) {
        assertEquals(1, fsck.awaitExit(STOP), fsck.output());
        assertTrue(
            fsck.output().contains("an interrupted mkfs left " + data + " incomplete"),
            fsck.output());
      }
      try (OsdProcess osd = start(data)) {
        osd.awaitReady();
        assertTrue(
            osd.output().contains("an interrupted mkfs left " + data + " incomplete"),
            osd.output());
        assertTrue(osd.output().contains("object store: 3 shards"), osd.output());
        osd.signal("TERM");
        assertEquals(0, osd.awaitExit(STOP), osd.output());
      }
      assertFalse(Files.exists(data.resolve("mkfs-incomplete")));

      Path cli = root.resolve("cli");
      try (OsdProcess mkfs =
          OsdProcess.start(
              "mkfs", "--data", cli.toString(), "--shards", "2", "--shard-size", "512m")) {
        killOncePreallocating(mkfs, cli);
      }
      try (OsdProcess mkfs =
          OsdProcess.start(
              "mkfs", "--data", cli.toString(), "--shards", "2", "--shard-size", "16m")) {
        assertEquals(0, mkfs.awaitExit(STOP), mkfs.output());
        assertTrue(
            mkfs.output().contains("an interrupted mkfs left " + cli + " incomplete"),
            mkfs.output());
      }
      assertFalse(Files.exists(cli.resolve("mkfs-incomplete")));
      try (OsdProcess fsck = OsdProcess.start("fsck", "--data", cli.toString())) {
        assertEquals(0, fsck.awaitExit(STOP), fsck.output());
      }
      // A complete store is never formatted again.
      try (OsdProcess mkfs =
          OsdProcess.start(
              "mkfs", "--data", cli.toString(), "--shards", "2", "--shard-size", "16m")) {
        assertTrue(mkfs.awaitExit(STOP) != 0, mkfs.output());
        assertTrue(mkfs.output().contains("already holds a store"), mkfs.output());
      }
    } finally {
      try (Stream<Path> s = Files.walk(root)) {
        for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /** SIGKILLs {@code process} as soon as its mkfs has created the volume of {@code data}. */
  private static void killOncePreallocating(OsdProcess process, Path data) throws Exception {
    long deadline = System.nanoTime() + STOP.toNanos();
    while (!Files.exists(data.resolve("volume"))) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no volume within " + STOP + "; output:\n" + process.output());
      }
      Thread.sleep(1);
    }
    process.kill9();
    assertTrue(Files.exists(data.resolve("mkfs-incomplete")), process.output());
  }

  private static byte[] read(ShardAwareClient client, int length) throws Exception {
    ByteBuf got = client.read("first", 0, length).get(30, TimeUnit.SECONDS);
    try {
      return ByteBufUtil.getBytes(got);
    } finally {
      got.release();
    }
  }
}
