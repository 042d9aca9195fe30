package io.tidestore.osd.nbd;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tidestore.osd.image.BlockImage;
import io.tidestore.store.api.Allocation;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A test-only image over a byte array, completing at once; reads at {@link #slowOffset} complete
 * only when the test completes {@link #slowRead}, to show out-of-order replies.
 */
final class MemoryImage implements BlockImage {
  private final String name;
  private final byte[] bytes;
  private final boolean readOnly;
  long slowOffset = -1;
  final CompletableFuture<Void> slowRead = new CompletableFuture<>();
  int flushes;

  MemoryImage(String name, int size, boolean readOnly) {
    this.name = name;
    this.bytes = new byte[size];
    this.readOnly = readOnly;
  }

  byte[] bytes() {
    return bytes;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public long size() {
    return bytes.length;
  }

  @Override
  public boolean readOnly() {
    return readOnly;
  }

  @Override
  public CompletionStage<ByteBuf> read(long offset, int length) {
    ByteBuf copy = Unpooled.copiedBuffer(bytes, (int) offset, length);
    if (offset == slowOffset) {
      return slowRead.thenApply(v -> copy);
    }
    return CompletableFuture.completedFuture(copy);
  }

  @Override
  public CompletionStage<Void> write(long offset, ByteBuf data, boolean fua) {
    try {
      data.readBytes(bytes, (int) offset, data.readableBytes());
    } finally {
      data.release();
    }
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletionStage<Void> flush() {
    flushes++;
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletionStage<Void> writeZeroes(long offset, long length, boolean fua, Zeroing how) {
    lastZeroing = how;
    Arrays.fill(bytes, (int) offset, (int) (offset + length), (byte) 0);
    return CompletableFuture.completedFuture(null);
  }

  /** How the last trim or write-zeroes asked to zero. */
  Zeroing lastZeroing;

  /** Data everywhere but in {@link #holes}: {start, end} pairs the test sets. */
  long[] holes = new long[0];

  @Override
  public CompletionStage<Allocation> allocation(long offset, long length) {
    long[] ranges = new long[holes.length + 2];
    int n = 0;
    long at = offset;
    long end = offset + length;
    for (int i = 0; i < holes.length; i += 2) {
      long start = Math.max(at, holes[i]);
      long stop = Math.min(end, holes[i + 1]);
      if (stop <= start) {
        continue;
      }
      if (start > at) {
        ranges[n++] = at;
        ranges[n++] = start;
      }
      at = stop;
    }
    if (at < end) {
      ranges[n++] = at;
      ranges[n++] = end;
    }
    return CompletableFuture.completedFuture(new Allocation(size(), Arrays.copyOf(ranges, n)));
  }
}
