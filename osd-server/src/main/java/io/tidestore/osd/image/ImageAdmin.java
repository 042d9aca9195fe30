package io.tidestore.osd.image;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tidestore.osd.ops.NamePage;
import io.tidestore.osd.ops.ObjectOps;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.ops.ObjectOpsException.Code;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Creating, listing, inspecting, resizing and removing images, like {@code rbd}: the rules live
 * here, over any {@link ObjectOps} (the CLI's is a protocol client), so every front end applies the
 * same ones. An image is its header object ({@link ImageHeaders}) and the data objects its {@link
 * ImageLayout} names; changes drop data before they set the size, so an interrupted one leaves an
 * image the same command can finish.
 *
 * <p>Blocking: each step waits for its op (30 s, 60 s for a batch of removals), so call it from a
 * thread of its own, never from a reactor.
 */
public final class ImageAdmin {
  /** What {@link #info} reports. */
  public record ImageInfo(String name, long size, ImageLayout layout) {}

  /** A refusal worth one line to the user: no such image, already there, a shrink not allowed. */
  public static final class ImageException extends Exception {
    private static final long serialVersionUID = 1L;

    ImageException(String message) {
      super(message);
    }
  }

  private final ObjectOps ops;

  public ImageAdmin(ObjectOps ops) {
    this.ops = ops;
  }

  /** Image names: 1..64 of {@code [A-Za-z0-9_-]}. */
  public static boolean validName(String name) {
    return ImageHeaders.validName(name);
  }

  /** Image sizes: a positive multiple of 512 bytes (a block device's sector). */
  public static boolean validSize(long bytes) {
    return bytes > 0 && bytes % 512 == 0;
  }

  /**
   * Creates {@code name} with {@code bytes}; data left under the name (an interrupted rm, a client
   * that kept writing to the old image) is dropped first, so it cannot show through.
   *
   * @throws ImageException the image exists
   */
  public void create(String name, long bytes) throws Exception {
    if (exists(name)) {
      throw new ImageException(name + " already exists");
    }
    dropData(name, 0);
    setSize(name, bytes);
  }

  /** Every image's name, sorted. */
  public List<String> list() throws Exception {
    TreeSet<String> names = new TreeSet<>();
    int shards = ops.shardOwners().length;
    for (int shard = 0; shard < shards; shard++) {
      String after = "";
      while (true) {
        NamePage page = await(ops.list(shard, after, 1024));
        for (String object : page.names()) {
          if (object.startsWith(ImageHeaders.HEADER_PREFIX)) {
            names.add(object.substring(ImageHeaders.HEADER_PREFIX.length()));
          }
        }
        if (!page.more() || page.names().isEmpty()) {
          break;
        }
        after = page.names().getLast();
      }
    }
    return List.copyOf(names);
  }

  /**
   * {@code name}'s size and layout.
   *
   * @throws ImageException no such image, or a malformed size
   */
  public ImageInfo info(String name) throws Exception {
    return new ImageInfo(name, size(name), ImageHeaders.layout(name));
  }

  /**
   * Sets {@code name}'s size to {@code bytes}; returns the old size. Data first, size last:
   * interrupted, the image keeps its old size with the cut part already zero, and the shrink can
   * simply run again. The same on a grow, for any data past the old end (left there by an
   * interrupted shrink of an older build, or written by a client racing the shrink).
   *
   * @throws ImageException no such image, a malformed size, or a shrink without {@code allowShrink}
   *     (it drops the data past the new end)
   */
  public long resize(String name, long bytes, boolean allowShrink) throws Exception {
    long old = size(name);
    if (bytes < old && !allowShrink) {
      throw new ImageException(
          "shrinking "
              + name
              + " from "
              + old
              + " to "
              + bytes
              + " bytes drops the data past the new end; pass --allow-shrink");
    }
    dropData(name, Math.min(bytes, old));
    setSize(name, bytes);
    return old;
  }

  /**
   * Removes {@code name}, whatever its header says (even a malformed size): every data object goes,
   * then the header, so an interrupted rm leaves an image that rm can finish.
   *
   * @throws ImageException no such image
   */
  public void remove(String name) throws Exception {
    if (!exists(name)) {
      throw new ImageException("no image " + name);
    }
    dropData(name, 0);
    await(ops.remove(ImageHeaders.headerObject(name)));
  }

  /**
   * The image's size from its header.
   *
   * @throws ImageException no such image, or a malformed size xattr
   */
  long size(String name) throws Exception {
    ByteBuf value;
    try {
      value = await(ops.getXattr(ImageHeaders.headerObject(name), ImageHeaders.SIZE_XATTR));
    } catch (ExecutionException e) {
      if (ObjectOpsException.is(e.getCause(), Code.NOT_FOUND)
          || ObjectOpsException.is(e.getCause(), Code.NO_ATTRIBUTE)) {
        throw new ImageException("no image " + name);
      }
      throw e;
    }
    long bytes;
    try {
      bytes = ImageHeaders.size(value);
    } finally {
      value.release();
    }
    if (bytes < 0) {
      throw new ImageException(
          "image " + name + " has a malformed size xattr (`tidestore image rm` still removes it)");
    }
    return bytes;
  }

  /** True when the header object exists, whatever its size xattr holds. */
  private boolean exists(String name) throws Exception {
    try {
      await(ops.stat(ImageHeaders.headerObject(name)));
      return true;
    } catch (ExecutionException e) {
      if (ObjectOpsException.is(e.getCause(), Code.NOT_FOUND)) {
        return false;
      }
      throw e;
    }
  }

  private void setSize(String name, long bytes) throws Exception {
    await(
        ops.setXattr(
            ImageHeaders.headerObject(name),
            ImageHeaders.SIZE_XATTR,
            Unpooled.buffer(8).writeLong(bytes)));
  }

  /**
   * Removes whatever data {@code name} holds at or beyond {@code fromBytes}: the data objects past
   * it are removed and the object it falls in is cut there, so those bytes read back as zeros if
   * the image grows again. Only objects that exist are visited (listed by name, see {@link
   * #dataObjects}), so the cost follows the data written, not the image's nominal size.
   */
  private void dropData(String name, long fromBytes) throws Exception {
    ImageLayout layout = ImageHeaders.layout(name);
    long firstWhole = layout.objectCount(fromBytes); // the first object wholly past fromBytes
    List<CompletableFuture<Void>> removals = new ArrayList<>();
    boolean cut = false;
    for (long object : dataObjects(name)) {
      if (object >= firstWhole) {
        removals.add(ignoreMissing(ops.remove(layout.dataObjectName(object))));
      } else if (object == layout.objectNumber(fromBytes)) {
        cut = true; // the object fromBytes falls in, present: cut below
      }
    }
    for (CompletableFuture<Void> removal : removals) {
      removal.get(60, TimeUnit.SECONDS);
    }
    if (cut && layout.offsetInObject(fromBytes) != 0) {
      String last = layout.dataObjectName(layout.objectNumber(fromBytes));
      ignoreMissing(ops.truncate(last, layout.offsetInObject(fromBytes))).get(30, TimeUnit.SECONDS);
    }
  }

  private static CompletableFuture<Void> ignoreMissing(CompletionStage<Void> op) {
    return op.toCompletableFuture()
        .exceptionally(
            e -> {
              if (ObjectOpsException.is(e, Code.NOT_FOUND)) {
                return null; // gone already
              }
              throw new CompletionException(ObjectOpsException.unwrap(e));
            });
  }

  /**
   * The object numbers of {@code name}'s data objects that exist, from every shard. Names list in
   * order, and {@code rbd_data.NAME.} prefixes this image's objects only (image names hold no
   * dots), so each shard's listing starts right at the prefix and stops where it ends.
   */
  private List<Long> dataObjects(String name) throws Exception {
    String prefix = ImageHeaders.dataPrefix(name);
    List<Long> objects = new ArrayList<>();
    int shards = ops.shardOwners().length;
    for (int shard = 0; shard < shards; shard++) {
      String after = prefix;
      boolean more = true;
      while (more) {
        NamePage page = await(ops.list(shard, after, 1024));
        for (String object : page.names()) {
          if (!object.startsWith(prefix)) {
            more = false;
            break;
          }
          try {
            objects.add(Long.parseUnsignedLong(object.substring(prefix.length()), 16));
          } catch (NumberFormatException e) {
            // Not a data object of ours (written through the object protocol): leave it.
          }
        }
        more &= page.more() && !page.names().isEmpty();
        if (more) {
          after = page.names().getLast();
        }
      }
    }
    return objects;
  }

  private static <T> T await(CompletionStage<T> op)
      throws InterruptedException, ExecutionException, TimeoutException {
    return op.toCompletableFuture().get(30, TimeUnit.SECONDS);
  }
}
