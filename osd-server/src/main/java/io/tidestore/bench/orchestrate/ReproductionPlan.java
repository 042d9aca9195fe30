package io.tidestore.bench.orchestrate;

import java.nio.file.Path;
import java.util.List;

/**
 * A one-command reproduction: for each run, a fresh daemon with its own options on a fresh store,
 * images, the same sweep; then one comparison of every run (and of runs made elsewhere, such as a
 * Ceph cluster's).
 *
 * @param runs the daemons to measure, in order
 * @param included run directories made outside, compared with ours (label, directory)
 * @param sweepArgs the sweep's options shared by every run (engine, workloads, iodepths, ...)
 * @param nativeEngine true when the sweep's engine is tidestore bench (else fio over NBD)
 * @param images images per run, named bench0..
 * @param imageSize size of each image, e.g. 1G
 * @param shards shards of each fresh store
 * @param shardSize bytes per shard, e.g. 256m
 * @param workDir where the temporary data directories go
 * @param outDir the reproduction's directory: one run directory per run, and compare/
 */
public record ReproductionPlan(
    List<Run> runs,
    List<Run> included,
    List<String> sweepArgs,
    boolean nativeEngine,
    int images,
    String imageSize,
    int shards,
    String shardSize,
    Path workDir,
    Path outDir) {

  /**
   * One run.
   *
   * @param label its name in reports
   * @param daemonOptions extra {@code tidestore osd} options, or for an included run the directory
   */
  public record Run(String label, List<String> daemonOptions) {}

  public ReproductionPlan {
    runs = List.copyOf(runs);
    included = List.copyOf(included);
    sweepArgs = List.copyOf(sweepArgs);
  }
}
