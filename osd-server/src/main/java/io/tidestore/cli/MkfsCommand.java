package io.tidestore.cli;

import io.tidestore.bench.job.ByteSize;
import io.tidestore.store.engine.DeviceFormat;
import io.tidestore.store.engine.StoreFormat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tidestore mkfs}: creates an object store. The volume (or, with {@code --layout files},
 * each shard file) is preallocated by writing zeros, so every later journal write lands on written
 * extents (no metadata commit per write). A directory that an interrupted mkfs left (it holds
 * {@code mkfs-incomplete}) is formatted again.
 */
@Command(
    name = "mkfs",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description = {
      "Create an object store in DIR: S shards of BYTES each in one file, DIR/volume"
          + " (preallocated by writing), each with two superblock copies and fixed-size"
          + " segments. One file, so one fdatasync makes every shard's journal writes durable.",
      "Shards are fixed for the life of the store; the daemon's reactor count is not.",
      "A DIR that an interrupted mkfs left (it holds mkfs-incomplete) is wiped and formatted"
          + " again; a DIR holding a complete store is refused.",
      "With --device, the store takes a whole raw block device instead (sized from the device;"
          + " discarded first where supported); DIR keeps only its lock and the device's name."
    },
    sortOptions = false)
final class MkfsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--data", paramLabel = "DIR", required = true, description = "Data directory.")
  Path data;

  @Option(
      names = "--shards",
      paramLabel = "S",
      description = "Store shards (one per reactor at most). Default: ${DEFAULT-VALUE}.")
  int shards = StoreFormat.DEFAULT_SHARDS;

  @Option(
      names = "--shard-size",
      paramLabel = "BYTES",
      description = "Bytes per shard; suffixes K, M, G allowed. Default: 1G.")
  String shardSize = "1G";

  @Option(
      names = "--segment-size",
      paramLabel = "BYTES",
      description =
          "Segment size, a multiple of 4K >= 64K; one write must fit one segment. Default:"
              + " 16M+64K (holds a 16 MiB write) for shards of 1G and more, else 1/64 of a"
              + " shard, a power of two in 256K..8M.")
  String segmentSize;

  @Option(
      names = "--device",
      paramLabel = "DEV",
      description =
          "Put the store on this raw block device (e.g. /dev/sdb; everything on it is lost),"
              + " S shards sized from the device. --shard-size does not apply.")
  Path device;

  @Option(
      names = "--layout",
      paramLabel = "volume|files",
      description =
          "volume: every shard's space in DIR/volume (one fdatasync covers every shard's"
              + " journal); files: a file per shard, DIR/shard-N, as stores made before the"
              + " volume layout. Default: ${DEFAULT-VALUE}.")
  String layout = "volume";

  @Override
  public Integer call() throws IOException {
    StoreFormat.SpaceLayout spaces;
    try {
      spaces = StoreFormat.SpaceLayout.parse(layout);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--layout: " + e.getMessage());
    }
    if (device != null) {
      int segment = segmentSize == null ? 0 : (int) parseSize(spec, "--segment-size", segmentSize);
      long start = System.nanoTime();
      try {
        DeviceFormat.mkfs(data, device, shards, segment, spec.commandLine().getOut()::println);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), e.getMessage());
      }
      spec.commandLine()
          .getOut()
          .printf(
              "created store on %s named in %s (%.1f s)%n",
              device, data, (System.nanoTime() - start) / 1e9);
      return 0;
    }
    long bytes = parseSize(spec, "--shard-size", shardSize);
    long segmentBytes =
        segmentSize == null
            ? StoreFormat.defaultSegmentBytes(bytes)
            : parseSize(spec, "--segment-size", segmentSize);
    if (segmentBytes > Integer.MAX_VALUE) {
      throw new ParameterException(
          spec.commandLine(), "--segment-size is too large: " + segmentSize);
    }
    int segment = (int) segmentBytes;
    try {
      // Refuse a bad geometry before the free-space check, so its message names the real problem.
      StoreFormat.checkGeometry(shards, bytes, segment);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    Files.createDirectories(data);
    // What an interrupted mkfs left here is removed before the shards are written again.
    long usable =
        Files.getFileStore(data).getUsableSpace() + StoreFormat.interruptedMkfsBytes(data);
    long need = bytes * shards;
    if (need > usable) {
      spec.commandLine()
          .getErr()
          .printf(
              "tidestore mkfs: %d shards of %d bytes need %d bytes, %s has %d free;"
                  + " pass a smaller --shard-size or fewer --shards%n",
              shards, bytes, need, data, usable);
      return 1;
    }
    long start = System.nanoTime();
    StoreFormat.mkfs(data, shards, bytes, segment, spaces, spec.commandLine().getOut()::println);
    spec.commandLine()
        .getOut()
        .printf(
            "created store in %s (%s layout): %d shards of %d bytes, %d-byte segments (%.1f s)%n",
            data, layout, shards, bytes, segment, (System.nanoTime() - start) / 1e9);
    return 0;
  }

  /** A positive size with an optional K, M, G, T or P suffix, else a usage error. */
  static long parseSize(CommandSpec spec, String option, String text) {
    long bytes;
    try {
      bytes = ByteSize.parse(text);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), option + ": " + e.getMessage());
    }
    if (bytes <= 0) {
      throw new ParameterException(spec.commandLine(), option + " must be positive, got " + text);
    }
    return bytes;
  }
}
