package io.tidestore.cli;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.tidestore.bench.job.ByteSize;
import io.tidestore.client.ShardAwareClient;
import io.tidestore.osd.image.ImageHeaders;
import io.tidestore.osd.image.ImageLayout;
import io.tidestore.osd.ops.NamePage;
import io.tidestore.osd.protocol.OpException;
import io.tidestore.osd.protocol.Status;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code tidestore image create|ls|info|resize|rm}, like {@code rbd}: images are managed through a
 * running OSD's object protocol (header object {@code rbd_header.NAME}, data objects {@code
 * rbd_data.NAME.<016x>}, see {@link ImageHeaders}).
 */
@Command(
    name = "image",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description = "Manage block images (striped over 4 MiB objects) on a running OSD.",
    subcommands = {
      ImageCommand.Create.class,
      ImageCommand.Ls.class,
      ImageCommand.Info.class,
      ImageCommand.Resize.class,
      ImageCommand.Rm.class
    })
final class ImageCommand {
  @Option(
      names = "--osd",
      paramLabel = "HOST:PORT",
      description = "The OSD's object protocol address. Default: ${DEFAULT-VALUE}.")
  String osd = "127.0.0.1:6800";

  @FunctionalInterface
  interface Action {
    int run(ShardAwareClient client, PrintWriter out) throws Exception;
  }

  int withClient(CommandSpec spec, Action action) throws Exception {
    int colon = osd.lastIndexOf(':');
    if (colon <= 0) {
      spec.commandLine().getErr().println("tidestore image: --osd wants HOST:PORT, got " + osd);
      return 2;
    }
    InetSocketAddress address =
        new InetSocketAddress(osd.substring(0, colon), Integer.parseInt(osd.substring(colon + 1)));
    MultiThreadIoEventLoopGroup group =
        new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try (ShardAwareClient client =
        ShardAwareClient.connect(group, NioSocketChannel.class, address)
            .get(30, TimeUnit.SECONDS)) {
      return action.run(client, spec.commandLine().getOut());
    } catch (ImageError e) {
      spec.commandLine().getErr().println("tidestore image: " + e.getMessage());
      return 1;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      spec.commandLine().getErr().println("tidestore image: " + cause.getMessage());
      return cause instanceof OpException op && op.status() == Status.ENOENT ? 2 : 1;
    } finally {
      // A closed channel still deregisters through a task on its loop: a short quiet period
      // lets that task run instead of being rejected by a loop that is already gone.
      group.shutdownGracefully(20, 2000, TimeUnit.MILLISECONDS).syncUninterruptibly();
    }
  }

  static void checkName(CommandSpec spec, String name) {
    if (!ImageHeaders.validName(name)) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "image name must be 1-64 of [A-Za-z0-9_-], got '" + name + "'");
    }
  }

  /**
   * The image's size from its header.
   *
   * @throws ImageError no such image, or a malformed size xattr
   */
  static long size(ShardAwareClient client, String name) throws Exception {
    ByteBuf value;
    try {
      value =
          client
              .getXattr(ImageHeaders.headerObject(name), ImageHeaders.SIZE_XATTR)
              .get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof OpException op
          && (op.status() == Status.ENOENT || op.status() == Status.ENODATA)) {
        throw new ImageError("no image " + name);
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
      throw new ImageError(
          "image " + name + " has a malformed size xattr (`tidestore image rm` still removes it)");
    }
    return bytes;
  }

  /** A refusal worth one line to the user, exit status 1. */
  static final class ImageError extends Exception {
    private static final long serialVersionUID = 1L;

    ImageError(String message) {
      super(message);
    }
  }

  /** True when the header object exists, whatever its size xattr holds. */
  static boolean exists(ShardAwareClient client, String name) throws Exception {
    try {
      client.stat(ImageHeaders.headerObject(name)).get(30, TimeUnit.SECONDS);
      return true;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof OpException op && op.status() == Status.ENOENT) {
        return false;
      }
      throw e;
    }
  }

  static void setSize(ShardAwareClient client, String name, long bytes) throws Exception {
    client
        .setXattr(
            ImageHeaders.headerObject(name),
            ImageHeaders.SIZE_XATTR,
            Unpooled.buffer(8).writeLong(bytes))
        .get(30, TimeUnit.SECONDS);
  }

  static long parseSize(CommandSpec spec, String text) {
    long bytes;
    try {
      bytes = ByteSize.parse(text);
    } catch (IllegalArgumentException e) {
      throw new picocli.CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    if (bytes <= 0 || bytes % 512 != 0) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--size must be a positive multiple of 512, got " + text);
    }
    return bytes;
  }

  /**
   * Removes whatever data {@code name} holds at or beyond {@code fromBytes}: the data objects past
   * it are removed and the object it falls in is cut there, so those bytes read back as zeros if
   * the image grows again. Only objects that exist are visited (listed by name, see {@link
   * #dataObjects}), so the cost follows the data written, not the image's nominal size.
   */
  static void dropData(ShardAwareClient client, String name, long fromBytes) throws Exception {
    ImageLayout layout = ImageHeaders.layout(name);
    long firstWhole = layout.objectCount(fromBytes); // the first object wholly past fromBytes
    List<CompletableFuture<Void>> removals = new ArrayList<>();
    boolean cut = false;
    for (long object : dataObjects(client, name)) {
      if (object >= firstWhole) {
        removals.add(ignoreMissing(client.remove(layout.dataObjectName(object))));
      } else if (object == layout.objectNumber(fromBytes)) {
        cut = true; // the object fromBytes falls in, present: cut below
      }
    }
    for (CompletableFuture<Void> removal : removals) {
      removal.get(60, TimeUnit.SECONDS);
    }
    if (cut && layout.offsetInObject(fromBytes) != 0) {
      String last = layout.dataObjectName(layout.objectNumber(fromBytes));
      ignoreMissing(client.truncate(last, layout.offsetInObject(fromBytes)))
          .get(30, TimeUnit.SECONDS);
    }
  }

  private static CompletableFuture<Void> ignoreMissing(CompletableFuture<Void> op) {
    return op.exceptionally(
        e -> {
          Throwable cause = e.getCause() == null ? e : e.getCause();
          if (cause instanceof OpException o && o.status() == Status.ENOENT) {
            return null; // gone already
          }
          throw new java.util.concurrent.CompletionException(cause);
        });
  }

  /**
   * The object numbers of {@code name}'s data objects that exist, from every shard. Names list in
   * order, and {@code rbd_data.NAME.} prefixes this image's objects only (image names hold no
   * dots), so each shard's listing starts right at the prefix and stops where it ends.
   */
  static List<Long> dataObjects(ShardAwareClient client, String name) throws Exception {
    String prefix = ImageHeaders.dataPrefix(name);
    List<Long> objects = new ArrayList<>();
    for (int shard = 0; shard < client.shardMap().shards(); shard++) {
      String after = prefix;
      boolean more = true;
      while (more) {
        NamePage page = client.list(shard, after, 1024).get(30, TimeUnit.SECONDS);
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

  @Command(name = "create", mixinStandardHelpOptions = true, description = "Create an image.")
  static final class Create implements Callable<Integer> {
    @ParentCommand ImageCommand parent;
    @Spec CommandSpec spec;

    @Parameters(paramLabel = "NAME")
    String name;

    @Option(names = "--size", required = true, description = "Size, e.g. 2G, 512M.")
    String size;

    @Override
    public Integer call() throws Exception {
      checkName(spec, name);
      long bytes = parseSize(spec, size);
      return parent.withClient(
          spec,
          (client, out) -> {
            if (exists(client, name)) {
              spec.commandLine().getErr().println("tidestore image: " + name + " already exists");
              return 1;
            }
            // Data left under this name (an interrupted rm, a client that kept writing to the
            // old image) must not show through the new one.
            dropData(client, name, 0);
            setSize(client, name, bytes);
            out.println("created " + name + " (" + bytes + " bytes)");
            return 0;
          });
    }
  }

  @Command(name = "ls", mixinStandardHelpOptions = true, description = "List images.")
  static final class Ls implements Callable<Integer> {
    @ParentCommand ImageCommand parent;
    @Spec CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      return parent.withClient(
          spec,
          (client, out) -> {
            TreeSet<String> names = new TreeSet<>();
            for (int shard = 0; shard < client.shardMap().shards(); shard++) {
              String after = "";
              while (true) {
                NamePage page = client.list(shard, after, 1024).get(30, TimeUnit.SECONDS);
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
            names.forEach(out::println);
            return 0;
          });
    }
  }

  @Command(name = "info", mixinStandardHelpOptions = true, description = "Show an image.")
  static final class Info implements Callable<Integer> {
    @ParentCommand ImageCommand parent;
    @Spec CommandSpec spec;

    @Parameters(paramLabel = "NAME")
    String name;

    @Override
    public Integer call() throws Exception {
      checkName(spec, name);
      return parent.withClient(
          spec,
          (client, out) -> {
            long bytes = size(client, name);
            ImageLayout layout = ImageHeaders.layout(name);
            out.println("image: " + name);
            out.println("size: " + bytes + " bytes (" + ByteSize.format(bytes) + ")");
            out.println("objects: " + layout.objectCount(bytes));
            out.println("object size: " + layout.objectSize() + " bytes");
            out.println("data prefix: rbd_data." + name);
            return 0;
          });
    }
  }

  @Command(name = "resize", mixinStandardHelpOptions = true, description = "Resize an image.")
  static final class Resize implements Callable<Integer> {
    @ParentCommand ImageCommand parent;
    @Spec CommandSpec spec;

    @Parameters(paramLabel = "NAME")
    String name;

    @Option(names = "--size", required = true, description = "New size, e.g. 4G.")
    String size;

    @Option(
        names = "--allow-shrink",
        description = "Allow a smaller size; the data past it is dropped (as rbd requires).")
    boolean allowShrink;

    @Override
    public Integer call() throws Exception {
      checkName(spec, name);
      long bytes = parseSize(spec, size);
      return parent.withClient(
          spec,
          (client, out) -> {
            long old = size(client, name);
            if (bytes < old && !allowShrink) {
              throw new ImageError(
                  "shrinking "
                      + name
                      + " from "
                      + old
                      + " to "
                      + bytes
                      + " bytes drops the data past the new end; pass --allow-shrink");
            }
            // Data first, size last: interrupted, the image keeps its old size with the cut
            // part already zero, and the shrink can simply run again. The same on a grow, for
            // any data past the old end (left there by an interrupted shrink of an older build,
            // or written by a client racing the shrink).
            dropData(client, name, Math.min(bytes, old));
            setSize(client, name, bytes);
            out.println("resized " + name + " from " + old + " to " + bytes + " bytes");
            return 0;
          });
    }
  }

  @Command(name = "rm", mixinStandardHelpOptions = true, description = "Remove an image.")
  static final class Rm implements Callable<Integer> {
    @ParentCommand ImageCommand parent;
    @Spec CommandSpec spec;

    @Parameters(paramLabel = "NAME")
    String name;

    @Override
    public Integer call() throws Exception {
      checkName(spec, name);
      return parent.withClient(
          spec,
          (client, out) -> {
            if (!exists(client, name)) {
              throw new ImageError("no image " + name);
            }
            // Whatever the header says (even a malformed size): every data object goes, then
            // the header, so an interrupted rm leaves an image that rm can finish.
            dropData(client, name, 0);
            client.remove(ImageHeaders.headerObject(name)).get(30, TimeUnit.SECONDS);
            out.println("removed " + name);
            return 0;
          });
    }
  }
}
