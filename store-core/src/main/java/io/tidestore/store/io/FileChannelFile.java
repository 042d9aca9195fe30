package io.tidestore.store.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/** An {@link IoFile} of the FileChannel backend: a channel opened with O_DIRECT. */
final class FileChannelFile implements IoFile {
  private final Path path;
  private final FileChannel channel;
  private final boolean blockDevice;
  private final FileChannelQueue queue;

  /** Operations on this file not yet delivered (owner thread only). */
  int inFlight;

  FileChannelFile(Path path, FileChannel channel, boolean blockDevice, FileChannelQueue queue) {
    this.path = path;
    this.channel = channel;
    this.blockDevice = blockDevice;
    this.queue = queue;
  }

  FileChannelQueue queue() {
    return queue;
  }

  FileChannel channel() {
    return channel;
  }

  boolean isOpen() {
    return channel.isOpen();
  }

  @Override
  public Path path() {
    return path;
  }

  @Override
  public long size() {
    try {
      return channel.size();
    } catch (IOException e) {
      throw new UncheckedIOException("size of " + path, e);
    }
  }

  @Override
  public boolean isBlockDevice() {
    return blockDevice;
  }

  @Override
  public void close() {
    queue.closeFile(this);
  }

  @Override
  public String toString() {
    return path.toString();
  }
}
