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
import io.tidestore.osd.protocol.ListPage;
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

  static long size(ShardAwareClient client, String name) throws Exception {
    ByteBuf value =
        client
            .getXattr(ImageHeaders.headerObject(name), ImageHeaders.SIZE_XATTR)
            .get(30, TimeUnit.SECONDS);
    try {
      return ImageHeaders.size(value);
    } finally {
      value.release();
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

  /** Removes the data objects of {@code name} at or beyond {@code fromBytes}. */
  static void dropData(ShardAwareClient client, String name, long fromBytes, long toBytes)
      throws Exception {
    ImageLayout layout = ImageHeaders.layout(name);
    long first = layout.objectCount(fromBytes);
    List<CompletableFuture<Void>> removals = new ArrayList<>();
    for (long object = first; object < layout.objectCount(toBytes); object++) {
      removals.add(
          client
              .remove(layout.dataObjectName(object))
              .exceptionally(
                  e -> {
                    Throwable cause = e.getCause() == null ? e : e.getCause();
                    if (cause instanceof OpException op && op.status() == Status.ENOENT) {
                      return null; // never written
                    }
                    throw new java.util.concurrent.CompletionException(cause);
                  }));
    }
    for (CompletableFuture<Void> removal : removals) {
      removal.get(60, TimeUnit.SECONDS);
    }
    if (fromBytes % layout.objectSize() != 0 && fromBytes < toBytes) {
      // The last kept object holds bytes past the new end: cut them so a later grow reads zeros.
      String last = layout.dataObjectName(layout.objectNumber(fromBytes));
      try {
        client.truncate(last, layout.offsetInObject(fromBytes)).get(30, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof OpException op && op.status() == Status.ENOENT)) {
          throw e;
        }
      }
    }
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
            try {
              size(client, name);
              spec.commandLine().getErr().println("tidestore image: " + name + " already exists");
              return 1;
            } catch (ExecutionException e) {
              if (!(e.getCause() instanceof OpException op && op.status() == Status.ENOENT)) {
                throw e;
              }
            }
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
                ListPage page = client.list(shard, after, 1024).get(30, TimeUnit.SECONDS);
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

    @Override
    public Integer call() throws Exception {
      checkName(spec, name);
      long bytes = parseSize(spec, size);
      return parent.withClient(
          spec,
          (client, out) -> {
            long old = size(client, name);
            setSize(client, name, bytes);
            if (bytes < old) {
              dropData(client, name, bytes, old);
            }
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
            long bytes = size(client, name);
            dropData(client, name, 0, bytes);
            client.remove(ImageHeaders.headerObject(name)).get(30, TimeUnit.SECONDS);
            out.println("removed " + name);
            return 0;
          });
    }
  }
}
