package io.tidestore.store.shard;

import io.tidestore.store.io.IoFile;
import io.tidestore.store.io.IoQueue;
import java.io.IOException;
import java.nio.file.Files;

/**
 * A shard's space and checkpoint slots opened on one I/O queue. The caller owns the files: on
 * failure, and when it is done, {@link #close} closes them. Owner thread of the queue only.
 */
final class OpenedSpace implements AutoCloseable {
  final IoFile file;
  final long base;
  final CheckpointSlot[] slots;

  private OpenedSpace(IoFile file, long base, CheckpointSlot[] slots) {
    this.file = file;
    this.base = base;
    this.slots = slots;
  }

  /**
   * Opens {@code space} for mounting ({@code writable}: slot files are created when missing) or for
   * an offline check (read only; a slot file that does not exist stays unopened).
   */
  static OpenedSpace open(IoQueue queue, ShardSpace space, boolean writable) throws IOException {
    IoFile file = queue.open(space.path(), writable ? IoFile.Mode.READ_WRITE : IoFile.Mode.READ);
    CheckpointSlot[] slots = new CheckpointSlot[2];
    try {
      for (int i = 0; i < 2; i++) {
        ShardSpace.Slot s = space.slots().get(i);
        IoFile f;
        if (!s.ownFile()) {
          f = queue.open(s.path(), writable ? IoFile.Mode.READ_WRITE : IoFile.Mode.READ);
        } else if (writable) {
          f = queue.open(s.path(), IoFile.Mode.CREATE);
        } else {
          f = Files.exists(s.path()) ? queue.open(s.path(), IoFile.Mode.READ) : null;
        }
        slots[i] = new CheckpointSlot(f, s.offset(), s.capacity());
      }
    } catch (IOException | RuntimeException e) {
      new OpenedSpace(file, space.base(), slots).close();
      throw e;
    }
    return new OpenedSpace(file, space.base(), slots);
  }

  /** The slots' files, for those who close them separately. */
  void closeSlots() {
    for (CheckpointSlot s : slots) {
      if (s != null && s.file() != null) {
        s.file().close();
      }
    }
  }

  @Override
  public void close() {
    file.close();
    closeSlots();
  }
}
