package io.tidestore.store.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/** An {@link IoFile} of the FileChannel backend: a channel opened with O_DIRECT. */
final class FileChannelFile extends AbstractIoFile {
  private final FileChannel channel;

  FileChannelFile(Path path, FileChannel channel, boolean blockDevice, FileChannelQueue queue) {
    super(queue, path, blockDevice);
    this.channel = channel;
  }

  FileChannel channel() {
    return channel;
  }

  @Override
  protected boolean isOpen() {
    return channel.isOpen();
  }

  @Override
  public long size() {
    try {
      return channel.size();
    } catch (IOException e) {
      throw new UncheckedIOException("size of " + path(), e);
    }
  }
}
