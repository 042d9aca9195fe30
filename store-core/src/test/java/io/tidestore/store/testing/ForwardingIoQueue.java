package io.tidestore.store.testing;

import io.tidestore.store.io.IoBackend;
import io.tidestore.store.io.IoCompletion;
import io.tidestore.store.io.IoFile;
import io.tidestore.store.io.IoQueue;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * An {@link IoQueue} that forwards everything to another: the base of the test fixtures' I/O
 * wrappers, which override the operations they watch or change.
 */
abstract class ForwardingIoQueue implements IoQueue {
  protected final IoQueue delegate;

  ForwardingIoQueue(IoQueue delegate) {
    this.delegate = delegate;
  }

  @Override
  public String describe() {
    return delegate.describe();
  }

  @Override
  public IoBackend backend() {
    return delegate.backend();
  }

  @Override
  public IoFile open(Path path, IoFile.Mode mode) throws IOException {
    return delegate.open(path, mode);
  }

  @Override
  public boolean registerBuffers(MemorySegment... regions) {
    return delegate.registerBuffers(regions);
  }

  @Override
  public int registerBuffer(MemorySegment region) {
    return delegate.registerBuffer(region);
  }

  @Override
  public void unregisterBuffer(int handle) {
    delegate.unregisterBuffer(handle);
  }

  @Override
  public int alignment() {
    return delegate.alignment();
  }

  @Override
  public int capacity() {
    return delegate.capacity();
  }

  @Override
  public int inFlight() {
    return delegate.inFlight();
  }

  @Override
  public void read(IoFile file, long offset, MemorySegment buffer, IoCompletion c, long tag) {
    delegate.read(file, offset, buffer, c, tag);
  }

  @Override
  public void write(IoFile file, long offset, MemorySegment buffer, IoCompletion c, long tag) {
    delegate.write(file, offset, buffer, c, tag);
  }

  @Override
  public void writeDurable(
      IoFile file, long offset, MemorySegment buffer, IoCompletion c, long tag) {
    delegate.writeDurable(file, offset, buffer, c, tag);
  }

  @Override
  public void sync(IoFile file, IoCompletion c, long tag) {
    delegate.sync(file, c, tag);
  }

  @Override
  public void writeThenSync(
      IoFile file, long offset, MemorySegment buffer, IoCompletion c, long tag) {
    delegate.writeThenSync(file, offset, buffer, c, tag);
  }

  @Override
  public int submit() throws IOException {
    return delegate.submit();
  }

  @Override
  public void beginBatch() {
    delegate.beginBatch();
  }

  @Override
  public void endBatch() throws IOException {
    delegate.endBatch();
  }

  @Override
  public int submitNow() throws IOException {
    return delegate.submitNow();
  }

  @Override
  public int poll() {
    return delegate.poll();
  }

  @Override
  public int await(long timeoutNanos) throws IOException {
    return delegate.await(timeoutNanos);
  }

  @Override
  public int completionFd() {
    return delegate.completionFd();
  }

  @Override
  public void setCompletionListener(Runnable listener) {
    delegate.setCompletionListener(listener);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
