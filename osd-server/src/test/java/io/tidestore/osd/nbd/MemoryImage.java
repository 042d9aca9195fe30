package io.tidestore.osd.nbd;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tidestore.osd.image.BlockImage;
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
  public CompletionStage<Void> trim(long offset, long length, boolean fua) {
    return writeZeroes(offset, length, fua);
  }

  @Override
  public CompletionStage<Void> writeZeroes(long offset, long length, boolean fua) {
    Arrays.fill(bytes, (int) offset, (int) (offset + length), (byte) 0);
    return CompletableFuture.completedFuture(null);
  }
}
