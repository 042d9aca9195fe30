package io.tidestore.osd.image;

import io.netty.buffer.ByteBuf;
import io.tidestore.osd.ops.NamePage;
import io.tidestore.osd.ops.ObjectInfo;
import io.tidestore.osd.ops.ObjectOps;
import io.tidestore.store.api.Allocation;
import java.util.concurrent.CompletionStage;

/**
 * The object protocol's view of the store, watching image headers: once a change to a header's size
 * (SETXATTR or RMXATTR of {@code size}) or its removal is durable, the {@link ImageCatalog} hears
 * of it, so NBD connections already open to that image follow the new size. Every op is forwarded
 * unchanged; the NBD data path does not go through here.
 */
public final class ImageHeaderWatch implements ObjectOps {
  private final ObjectOps delegate;
  private final ImageCatalog catalog;

  public ImageHeaderWatch(ObjectOps delegate, ImageCatalog catalog) {
    this.delegate = delegate;
    this.catalog = catalog;
  }

  /** The image whose size lives in {@code name}'s {@code key}, else null. */
  private static String sizeOf(String name, String key) {
    return ImageHeaders.SIZE_XATTR.equals(key) ? imageOf(name) : null;
  }

  private static String imageOf(String header) {
    return header.startsWith(ImageHeaders.HEADER_PREFIX)
        ? header.substring(ImageHeaders.HEADER_PREFIX.length())
        : null;
  }

  @Override
  public boolean freesBlocks() {
    return delegate.freesBlocks();
  }

  @Override
  public CompletionStage<Void> punch(String name, long offset, long length) {
    return delegate.punch(name, offset, length);
  }

  @Override
  public CompletionStage<Allocation> allocation(String name, long offset, long length) {
    return delegate.allocation(name, offset, length);
  }

  @Override
  public CompletionStage<Void> setXattr(String name, String key, ByteBuf value) {
    String image = sizeOf(name, key);
    if (image == null) {
      return delegate.setXattr(name, key, value);
    }
    long size = ImageHeaders.size(value); // read now: the store releases the value
    return delegate.setXattr(name, key, value).thenRun(() -> catalog.resized(image, size));
  }

  @Override
  public CompletionStage<Void> removeXattr(String name, String key) {
    String image = sizeOf(name, key);
    CompletionStage<Void> done = delegate.removeXattr(name, key);
    return image == null ? done : done.thenRun(() -> catalog.removed(image));
  }

  @Override
  public CompletionStage<Void> remove(String name) {
    String image = imageOf(name);
    CompletionStage<Void> done = delegate.remove(name);
    return image == null ? done : done.thenRun(() -> catalog.removed(image));
  }

  @Override
  public int[] shardOwners() {
    return delegate.shardOwners();
  }

  @Override
  public CompletionStage<Void> write(String name, long offset, ByteBuf data) {
    return delegate.write(name, offset, data);
  }

  @Override
  public CompletionStage<ByteBuf> read(String name, long offset, int length) {
    return delegate.read(name, offset, length);
  }

  @Override
  public CompletionStage<ObjectInfo> stat(String name) {
    return delegate.stat(name);
  }

  @Override
  public CompletionStage<Void> truncate(String name, long size) {
    return delegate.truncate(name, size);
  }

  @Override
  public CompletionStage<NamePage> list(int shard, String after, int max) {
    return delegate.list(shard, after, max);
  }

  @Override
  public CompletionStage<ByteBuf> getXattr(String name, String key) {
    return delegate.getXattr(name, key);
  }
}
