package io.tidestore.store.io.handoff;

import io.tidestore.store.io.Errno;
import io.tidestore.store.io.IoCompletion;
import io.tidestore.store.io.IoOpException;
import io.tidestore.store.io.IoQueue;
import java.lang.foreign.MemorySegment;

/**
 * One operation slot of an {@link IoThreadQueue}, reused: the owner fills it, the I/O thread
 * prepares it on the ring with the slot itself as the completion (so the ring's side allocates
 * nothing either), and the outcome travels back in it. The hand-off queues between the threads
 * order the plain field accesses.
 */
final class HandedOffOp implements IoCompletion {
  private final IoThreadQueue queue;
  IoOpException.Op op;
  HandedOffFile file;
  long offset;
  MemorySegment buffer;
  IoCompletion completion;
  long tag;
  int result;
  IoOpException error;

  HandedOffOp(IoThreadQueue queue) {
    this.queue = queue;
  }

  /** Owner thread: fills the slot; {@code buffer} is null for a sync. */
  void set(
      IoOpException.Op op,
      HandedOffFile file,
      long offset,
      MemorySegment buffer,
      IoCompletion completion,
      long tag) {
    this.op = op;
    this.file = file;
    this.offset = offset;
    this.buffer = buffer;
    this.completion = completion;
    this.tag = tag;
  }

  /** I/O thread: prepares the operation on {@code ring}; what the ring refuses fails here. */
  void prepareOn(IoQueue ring) {
    try {
      switch (op) {
        case READ -> ring.read(file.delegate(), offset, buffer, this, 0);
        case WRITE -> ring.write(file.delegate(), offset, buffer, this, 0);
        case WRITE_DURABLE -> ring.writeDurable(file.delegate(), offset, buffer, this, 0);
        case SYNC -> ring.sync(file.delegate(), this, 0);
        case WRITE_THEN_SYNC -> ring.writeThenSync(file.delegate(), offset, buffer, this, 0);
      }
    } catch (RuntimeException e) {
      // What the ring refuses to queue fails as the ring would have failed it, on the owner.
      failed(0, new IoOpException(op, Errno.EINVAL, offset, length(), e.toString()));
    }
  }

  /** Fails an operation the ring never saw: the queue is closing. */
  void cancel() {
    failed(
        0,
        new IoOpException(
            op,
            Errno.ECANCELED,
            offset,
            length(),
            "queue closed before the operation was submitted"));
  }

  private long length() {
    return buffer == null ? 0 : buffer.byteSize();
  }

  @Override
  public void completed(long ignored, int result) {
    this.result = result;
    this.error = null;
    queue.handBack(this);
  }

  @Override
  public void failed(long ignored, IoOpException error) {
    this.error = error;
    queue.handBack(this);
  }

  /** Owner thread, once delivered: drops the references the slot held. */
  void clear() {
    file = null;
    buffer = null;
    completion = null;
    error = null;
  }
}
