package io.tidestore.store.io;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;

/**
 * One preallocated operation slot of the FileChannel backend. The owner thread fills it and hands
 * it to a worker through a blocking queue (that hand-off is the happens-before edge); the worker
 * runs the blocking calls, records the outcome and hands it back the same way.
 */
final class FallbackOp {
  final int slot;
  IoOpException.Op op;
  FileChannelFile file;
  long offset;
  MemorySegment buffer;
  IoCompletion completion;
  long tag;
  int alignment;

  /** Outcome: bytes moved, or -errno. */
  int result;

  String detail;

  FallbackOp(int slot) {
    this.slot = slot;
  }

  void set(
      IoOpException.Op op,
      FileChannelFile file,
      long offset,
      MemorySegment buffer,
      IoCompletion completion,
      long tag,
      int alignment) {
    this.op = op;
    this.file = file;
    this.offset = offset;
    this.buffer = buffer;
    this.completion = completion;
    this.tag = tag;
    this.alignment = alignment;
    this.result = 0;
    this.detail = null;
  }

  long length() {
    return buffer == null ? 0 : buffer.byteSize();
  }

  void clear() {
    file = null;
    buffer = null;
    completion = null;
  }

  /** Runs on a worker thread: the blocking calls, with failures turned into an errno. */
  void execute() {
    try {
      if (!file.isOpen()) {
        fail(Errno.EBADF, "file " + file + " is closed");
        return;
      }
      FileChannel channel = file.channel();
      if (op == IoOpException.Op.SYNC) {
        channel.force(false);
        result = 0;
        return;
      }
      if (!DirectIo.aligned(offset, buffer, alignment)) {
        fail(Errno.EINVAL, "O_DIRECT needs address, length and offset aligned to " + alignment);
        return;
      }
      ByteBuffer bytes = byteBuffer();
      if (bytes == null) {
        return;
      }
      if (op == IoOpException.Op.READ) {
        // One pread, like the kernel: a read crossing the end of the file completes short.
        int n = channel.read(bytes, offset);
        result = Math.max(n, 0);
        return;
      }
      int total = 0;
      while (bytes.hasRemaining()) {
        total += channel.write(bytes, offset + total);
      }
      if (op != IoOpException.Op.WRITE) {
        channel.force(false);
      }
      result = total;
    } catch (ClosedChannelException e) {
      fail(Errno.EBADF, "file " + file + " is closed");
    } catch (IOException e) {
      fail(errnoOf(e), String.valueOf(e.getMessage()));
    } catch (RuntimeException e) {
      fail(Errno.EIO, e.toString());
    }
  }

  private ByteBuffer byteBuffer() {
    MemorySegment target = buffer;
    if (!target.isAccessibleBy(Thread.currentThread())) {
      // A confined segment: reach the same memory by address; the caller keeps it alive until
      // completion, as it must for the kernel. This needs native access (a restricted method).
      if (!FallbackOp.class.getModule().isNativeAccessEnabled()) {
        fail(
            Errno.EFAULT,
            "buffer is confined to another thread; use a shared arena (e.g. AlignedBufferPool)");
        return null;
      }
      target = MemorySegment.ofAddress(buffer.address()).reinterpret(buffer.byteSize());
    }
    return target.asByteBuffer();
  }

  private void fail(int errno, String why) {
    result = -errno;
    detail = why;
  }

  /** The JDK reports the C library's strerror text; map the ones storage cares about. */
  private static int errnoOf(IOException e) {
    String message = String.valueOf(e.getMessage());
    if (message.contains("No space left")) {
      return Errno.ENOSPC;
    }
    if (message.contains("Invalid argument") || message.contains("multiple of")) {
      return Errno.EINVAL;
    }
    if (message.contains("Bad file descriptor")) {
      return Errno.EBADF;
    }
    return Errno.EIO;
  }
}
