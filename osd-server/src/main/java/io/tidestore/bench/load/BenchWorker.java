package io.tidestore.bench.load;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.tidestore.bench.job.FioJob;
import io.tidestore.client.ShardAwareClient;
import io.tidestore.osd.protocol.OpException;
import io.tidestore.osd.protocol.Status;
import java.util.SplittableRandom;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.HdrHistogram.Recorder;

/**
 * One fio job instance ({@code numjobs} makes several): {@code iodepth} slots, each with one op in
 * flight at all times; a slot issues its next op from the completion of its last, so exactly {@code
 * iodepth} ops are outstanding until the worker stops.
 *
 * <p>No allocation per op on the generator's side: each slot owns its data buffer (written with a
 * retain, so the client's release leaves it alive), object names come from {@link ImageTarget}, the
 * slot itself is the completion callback, and latencies go into HdrHistogram recorders. What
 * remains per op is the client's own request state (its future and pending entry).
 *
 * <p>Threading: slots complete on the client's event loop threads; choosing the next offset is
 * synchronized on the worker (uncontended with one client thread), recorders are multi-writer.
 */
final class BenchWorker {
  /** Latencies up to an hour, 3 significant digits: fio's percentiles with room to spare. */
  private static final long MAX_LATENCY_NANOS = 3_600_000_000_000L;

  private final FioJob job;
  private final ShardAwareClient client;
  private final ImageTarget image;
  private final OffsetStream offsets;
  private final SplittableRandom mix;
  private final long bytesLimit;
  private final Slot[] slots;
  private final CountDownLatch idle;
  final Recorder reads = new Recorder(MAX_LATENCY_NANOS, 3);
  final Recorder writes = new Recorder(MAX_LATENCY_NANOS, 3);
  private long bytesIssued;
  private volatile boolean stopping;
  private volatile Throwable failure;

  /**
   * @param bytesLimit stop issuing after this many bytes (fio's size without time_based), or {@link
   *     Long#MAX_VALUE}
   */
  BenchWorker(
      FioJob job,
      ShardAwareClient client,
      ImageTarget image,
      long span,
      long bytesLimit,
      long seed,
      ByteBufAllocator alloc) {
    this.job = job;
    this.client = client;
    this.image = image;
    this.offsets = OffsetStream.of(job, span, seed);
    this.mix = new SplittableRandom(seed ^ 0x5DEECE66DL);
    this.bytesLimit = bytesLimit;
    this.slots = new Slot[job.iodepth()];
    this.idle = new CountDownLatch(slots.length);
    byte[] pattern = new byte[(int) job.blockSize()];
    new SplittableRandom(seed).nextBytes(pattern); // incompressible, as fio's default buffers
    for (int i = 0; i < slots.length; i++) {
      ByteBuf buffer = alloc.directBuffer(pattern.length, pattern.length);
      buffer.writeBytes(pattern);
      slots[i] = new Slot(buffer);
    }
  }

  /** Puts {@code iodepth} ops in flight. */
  void start() {
    for (Slot slot : slots) {
      slot.issue();
    }
  }

  /** Slots stop issuing; each goes idle when its op in flight completes. */
  void stop() {
    stopping = true;
  }

  /** Waits until no op is in flight; false on timeout. */
  boolean awaitIdle(long millis) throws InterruptedException {
    return idle.await(millis, TimeUnit.MILLISECONDS);
  }

  /** The first op failure, or null. */
  Throwable failure() {
    return failure;
  }

  /** Releases the slots' buffers; only after {@link #awaitIdle} returned true. */
  void release() {
    for (Slot slot : slots) {
      slot.buffer.release();
    }
  }

  /** Chooses the slot's next op into it; false when the worker is done issuing. */
  private synchronized boolean next(Slot slot) {
    if (stopping || failure != null || bytesIssued >= bytesLimit) {
      return false;
    }
    bytesIssued += job.blockSize();
    slot.offset = offsets.next();
    int readPercent = job.readPercent();
    slot.write = readPercent == 0 || (readPercent < 100 && mix.nextInt(100) >= readPercent);
    return true;
  }

  private final class Slot implements BiConsumer<Object, Throwable> {
    final ByteBuf buffer;
    long offset;
    boolean write;
    long startNanos;

    Slot(ByteBuf buffer) {
      this.buffer = buffer;
    }

    void issue() {
      if (!next(this)) {
        idle.countDown();
        return;
      }
      String object = image.objectNames()[(int) image.layout().objectNumber(offset)];
      int at = image.layout().offsetInObject(offset);
      int length = (int) job.blockSize();
      startNanos = System.nanoTime();
      if (write) {
        // The client releases what it sends: retain so the slot keeps its buffer.
        buffer.retain().setIndex(0, length);
        client.write(object, at, buffer).whenComplete(this);
      } else {
        client.read(object, at, length).whenComplete(this);
      }
    }

    @Override
    public void accept(Object result, Throwable error) {
      long latency = System.nanoTime() - startNanos;
      if (result instanceof ByteBuf data) {
        data.release();
      }
      if (error != null && !(!write && isHole(error))) {
        if (failure == null) {
          failure = error instanceof CompletionException ce ? ce.getCause() : error;
        }
        idle.countDown();
        return;
      }
      (write ? writes : reads).recordValue(latency);
      issue();
    }
  }

  /** A read of an object never written: a hole of zeros, as the image layer reads it. */
  private static boolean isHole(Throwable error) {
    Throwable cause = error instanceof CompletionException ce ? ce.getCause() : error;
    return cause instanceof OpException e && e.status() == Status.ENOENT;
  }
}
