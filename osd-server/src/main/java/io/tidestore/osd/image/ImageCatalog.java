package io.tidestore.osd.image;

import io.tidestore.osd.nbd.BlockImage;
import io.tidestore.osd.nbd.ImageExports;
import io.tidestore.osd.protocol.ListPage;
import io.tidestore.osd.protocol.ObjectOps;
import io.tidestore.osd.protocol.OpException;
import io.tidestore.osd.protocol.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The images the daemon exports over NBD, read from their header objects ({@link ImageHeaders})
 * each time a client asks, so images created or resized through the object protocol are seen at
 * once. An empty export name means the configured default image. Calls go through {@link
 * ObjectOps}, so, as it requires, they must come from a reactor thread (the NBD handshake's).
 *
 * <p>Every connection to one image shares its {@link LiveSize}, which {@link ImageHeaderWatch}
 * keeps in step with the header as the object protocol resizes or removes the image.
 */
public final class ImageCatalog implements ImageExports {
  private final ObjectOps ops;
  private final String defaultImage;
  private final ConcurrentHashMap<String, LiveSize> open = new ConcurrentHashMap<>();

  public ImageCatalog(ObjectOps ops, String defaultImage) {
    this.ops = ops;
    this.defaultImage = defaultImage;
  }

  @Override
  public CompletionStage<Optional<BlockImage>> open(String name) {
    String image = name.isEmpty() ? defaultImage : name;
    if (!ImageHeaders.validName(image)) {
      return CompletableFuture.completedFuture(Optional.empty());
    }
    return ops.getXattr(ImageHeaders.headerObject(image), ImageHeaders.SIZE_XATTR)
        .handle(
            (value, failure) -> {
              if (failure != null) {
                Throwable cause =
                    failure instanceof CompletionException ? failure.getCause() : failure;
                if (cause instanceof OpException e
                    && (e.status() == Status.ENOENT || e.status() == Status.ENODATA)) {
                  return Optional.empty();
                }
                throw new CompletionException(cause);
              }
              long size;
              try {
                size = ImageHeaders.size(value);
              } finally {
                value.release();
              }
              if (size < 0) {
                throw new CompletionException(
                    new OpException(Status.EIO, "image " + image + " has a malformed size"));
              }
              LiveSize live =
                  open.compute(image, (k, known) -> known == null ? new LiveSize(size) : known);
              live.set(size); // what the header says now
              return Optional.of(
                  (BlockImage)
                      new ObjectImage(ops, ImageHeaders.layout(image), image, live, false));
            });
  }

  /** The header of {@code image} now says {@code size} (-1: malformed, taken as removed). */
  void resized(String image, long size) {
    if (size < 0) {
      removed(image);
      return;
    }
    LiveSize live = open.get(image);
    if (live != null) {
      live.set(size);
    }
  }

  /**
   * {@code image}'s header is gone: connections still open to it see size 0, and an image created
   * later under the same name starts with a size of its own.
   */
  void removed(String image) {
    LiveSize live = open.remove(image);
    if (live != null) {
      live.set(0);
    }
  }

  @Override
  public CompletionStage<List<String>> names() {
    List<String> names = new ArrayList<>();
    CompletionStage<Void> chain = CompletableFuture.completedFuture(null);
    int shards = ops.shardOwners().length;
    for (int s = 0; s < shards; s++) {
      int shard = s;
      chain = chain.thenCompose(v -> listShard(shard, "", names));
    }
    return chain.thenApply(v -> List.copyOf(names));
  }

  private CompletionStage<Void> listShard(int shard, String after, List<String> names) {
    return ops.list(shard, after, 1024)
        .thenCompose(
            (ListPage page) -> {
              for (String object : page.names()) {
                if (object.startsWith(ImageHeaders.HEADER_PREFIX)) {
                  synchronized (names) {
                    names.add(object.substring(ImageHeaders.HEADER_PREFIX.length()));
                  }
                }
              }
              return page.more() && !page.names().isEmpty()
                  ? listShard(shard, page.names().getLast(), names)
                  : CompletableFuture.<Void>completedFuture(null);
            });
  }
}
