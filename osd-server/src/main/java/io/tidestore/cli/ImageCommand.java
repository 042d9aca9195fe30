package io.tidestore.cli;

import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.tidestore.bench.job.ByteSize;
import io.tidestore.client.ClientObjectOps;
import io.tidestore.client.ClusterClient;
import io.tidestore.client.ClusterObjectOps;
import io.tidestore.client.ShardAwareClient;
import io.tidestore.cluster.client.MonAddresses;
import io.tidestore.cluster.tls.TlsLinks;
import io.tidestore.cluster.wire.LinkSecurity;
import io.tidestore.osd.image.ImageAdmin;
import io.tidestore.osd.image.ImageAdmin.ImageException;
import io.tidestore.osd.image.ImageAdmin.ImageInfo;
import io.tidestore.osd.image.ImageHeaders;
import io.tidestore.osd.image.ImageLayout;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.protocol.OpException;
import io.tidestore.osd.protocol.Status;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code tidestore image create|ls|info|resize|rm}, like {@code rbd}: images are managed through a
 * running OSD's object protocol (header object {@code rbd_header.NAME}, data objects {@code
 * rbd_data.NAME.<016x>}, see {@link ImageHeaders}). The rules are {@link ImageAdmin}'s; this parses
 * the arguments and prints.
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
      description =
          "A standalone OSD's object protocol address. Default: 127.0.0.1:6800 (unless --mon or"
              + " $TIDESTORE_MON names a cluster).")
  String osd;

  @Option(
      names = "--mon",
      paramLabel = "H:P[,H:P...]",
      scope = ScopeType.INHERIT,
      description = "A cluster's monitors: the images are the pool's. Default: $TIDESTORE_MON.")
  String mon;

  @Option(
      names = "--pool",
      paramLabel = "NAME",
      scope = ScopeType.INHERIT,
      description = "The cluster pool of the images (with --mon). Default: rbd.")
  String pool = "rbd";

  @Mixin ClientTlsOptions tls = new ClientTlsOptions();

  @FunctionalInterface
  interface Action {
    int run(ImageAdmin images, PrintWriter out) throws Exception;
  }

  int withClient(CommandSpec spec, Action action) throws Exception {
    String monitors = mon != null ? mon : osd == null ? System.getenv(MonAddresses.ENV) : null;
    if (monitors != null && !monitors.isBlank()) {
      return withCluster(spec, monitors, action);
    }
    String osd = this.osd != null ? this.osd : "127.0.0.1:6800";
    int colon = osd.lastIndexOf(':');
    if (colon <= 0) {
      spec.commandLine().getErr().println("tidestore image: --osd wants HOST:PORT, got " + osd);
      return 2;
    }
    InetSocketAddress address =
        new InetSocketAddress(osd.substring(0, colon), Integer.parseInt(osd.substring(colon + 1)));
    SslContext context;
    try {
      context = tls.objectProtocol();
    } catch (java.io.IOException e) {
      spec.commandLine().getErr().println("tidestore image: " + e.getMessage());
      return 2;
    }
    MultiThreadIoEventLoopGroup group =
        new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try (ShardAwareClient client =
        ShardAwareClient.connect(group, NioSocketChannel.class, address, context)
            .get(30, TimeUnit.SECONDS)) {
      return action.run(new ImageAdmin(new ClientObjectOps(client)), spec.commandLine().getOut());
    } catch (ImageException e) {
      spec.commandLine().getErr().println("tidestore image: " + e.getMessage());
      return 1;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      spec.commandLine().getErr().println("tidestore image: " + cause.getMessage());
      return isMissing(cause) ? 2 : 1;
    } finally {
      // A closed channel still deregisters through a task on its loop: a short quiet period
      // lets that task run instead of being rejected by a loop that is already gone.
      group.shutdownGracefully(20, 2000, TimeUnit.MILLISECONDS).syncUninterruptibly();
    }
  }

  /** Runs {@code action} on the images of a cluster pool, through a client that follows the map. */
  private int withCluster(CommandSpec spec, String monitors, Action action) throws Exception {
    java.nio.file.Path certificates = tls.directory();
    try (ClusterClient client =
        ClusterClient.connect(
            MonAddresses.parse(monitors),
            certificates == null ? LinkSecurity.PLAINTEXT : TlsLinks.client(certificates),
            tls.objectProtocol(),
            java.time.Duration.ofSeconds(60))) {
      return action.run(
          new ImageAdmin(new ClusterObjectOps(client, pool)), spec.commandLine().getOut());
    } catch (ImageException e) {
      spec.commandLine().getErr().println("tidestore image: " + e.getMessage());
      return 1;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      spec.commandLine().getErr().println("tidestore image: " + cause.getMessage());
      return isMissing(cause) ? 2 : 1;
    } catch (java.io.IOException | IllegalArgumentException e) {
      spec.commandLine().getErr().println("tidestore image: " + e.getMessage());
      return 1;
    }
  }

  /** A missing object, as an op reports it or as the protocol does (exit status 2). */
  private static boolean isMissing(Throwable cause) {
    if (cause instanceof ObjectOpsException op) {
      return op.code() == ObjectOpsException.Code.NOT_FOUND;
    }
    return cause instanceof OpException reply && reply.status() == Status.ENOENT;
  }

  static void checkName(CommandSpec spec, String name) {
    if (!ImageAdmin.validName(name)) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "image name must be 1-64 of [A-Za-z0-9_-], got '" + name + "'");
    }
  }

  static long parseSize(CommandSpec spec, String text) {
    long bytes;
    try {
      bytes = ByteSize.parse(text);
    } catch (IllegalArgumentException e) {
      throw new picocli.CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    if (!ImageAdmin.validSize(bytes)) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--size must be a positive multiple of 512, got " + text);
    }
    return bytes;
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
          (images, out) -> {
            images.create(name, bytes);
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
          (images, out) -> {
            List<String> names = images.list();
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
          (images, out) -> {
            ImageInfo info = images.info(name);
            long bytes = info.size();
            ImageLayout layout = info.layout();
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
          (images, out) -> {
            long old = images.resize(name, bytes, allowShrink);
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
          (images, out) -> {
            images.remove(name);
            out.println("removed " + name);
            return 0;
          });
    }
  }
}
