package io.tidestore.osd.image;

import io.tidestore.osd.ops.NamePage;
import io.tidestore.osd.ops.ObjectOps;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.ops.ObjectOpsException.Code;
import io.tidestore.osd.ops.PieceIo;
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
  private final PieceIo pieces;
  private final String defaultImage;
  private final ConcurrentHashMap<String, LiveSize> open = new ConcurrentHashMap<>();

  /**
   * @param pieces the images' fast data path into the store, or null to go through {@code ops}
   */
  public ImageCatalog(ObjectOps ops, PieceIo pieces, String defaultImage) {
    this.ops = ops;
    this.pieces = pieces;
    this.defaultImage = defaultImage;
  }

  @Override
  public String canonicalName(String name) {
    return name.isEmpty() ? defaultImage : name;
  }

  @Override
  public CompletionStage<Optional<BlockImage>> open(String name) {
    String image = canonicalName(name);
    if (!ImageHeaders.validName(image)) {
      return CompletableFuture.completedFuture(Optional.empty());
    }
    return ops.getXattr(ImageHeaders.headerObject(image), ImageHeaders.SIZE_XATTR)
        .handle(
            (value, failure) -> {
              if (failure != null) {
                if (ObjectOpsException.is(failure, Code.NOT_FOUND)
                    || ObjectOpsException.is(failure, Code.NO_ATTRIBUTE)) {
                  return Optional.empty();
                }
                throw new CompletionException(ObjectOpsException.unwrap(failure));
              }
              long size;
              try {
                size = ImageHeaders.size(value);
              } finally {
                value.release();
              }
              if (size < 0) {
                throw new CompletionException(
                    new ObjectOpsException(
                        Code.CORRUPT, "image " + image + " has a malformed size"));
              }
              LiveSize live =
                  open.compute(image, (k, known) -> known == null ? new LiveSize(size) : known);
              live.set(size); // what the header says now
              return Optional.of(
                  (BlockImage)
                      new ObjectImage(ops, pieces, ImageHeaders.layout(image), image, live, false));
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
            (NamePage page) -> {
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
