package io.tidestore.it;

import io.tidestore.store.engine.StoreLayout;
import io.tidestore.store.shard.ShardSpace;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A store's blocks on disk, found by their content: how the scrub tests damage one block the way a
 * disk would (a flipped byte under a block whose stored crc no longer matches), with nothing in the
 * daemon helping.
 */
final class StoredBlocks {
  static final int BLOCK = 4096;

  private StoredBlocks() {}

  /** Where a block is stored: the shard and the byte offset in that shard's file. */
  record At(int shard, long offset) {}

  /**
   * Every 4 KiB-aligned place of the store in {@code data} (of {@code shards} shards) that holds
   * exactly {@code block}.
   */
  static List<At> find(Path data, int shards, byte[] block) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(1 << 20);
    List<At> found = new ArrayList<>();
    StoreLayout layout = StoreLayout.of(data);
    for (int s = 0; s < shards; s++) {
      ShardSpace space = layout.space(s);
      long end = layout.readSuperblock(s).shardBytes(); // the space's absolute end
      try (FileChannel ch = FileChannel.open(space.path())) {
        for (long pos = space.base(); pos < end; pos += buf.capacity()) {
          buf.clear().limit((int) Math.min(buf.capacity(), end - pos));
          ch.read(buf, pos);
          for (int at = 0; at + BLOCK <= buf.position(); at += BLOCK) {
            if (ByteBuffer.wrap(buf.array(), at, BLOCK).equals(ByteBuffer.wrap(block))) {
              found.add(new At(s, pos + at));
            }
          }
        }
      }
    }
    return found;
  }

  /** Flips byte {@code inBlock} of the block at {@code at} (XOR 0x5a) and forces it to disk. */
  static void flip(Path data, At at, int inBlock) throws IOException {
    try (FileChannel ch =
        FileChannel.open(
            StoreLayout.of(data).space(at.shard()).path(),
            StandardOpenOption.WRITE,
            StandardOpenOption.READ)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      ch.read(one, at.offset() + inBlock);
      one.put(0, (byte) (one.get(0) ^ 0x5a)).rewind();
      ch.write(one, at.offset() + inBlock);
      ch.force(true);
    }
  }
}
