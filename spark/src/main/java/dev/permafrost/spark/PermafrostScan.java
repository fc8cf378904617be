/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.snapshot.SnapshotRepository;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.LongAccumulator;

/**
 * A planned read: on the driver, the selected snapshots whose manifests cannot match the pushed time range or
 * {@code _index} filter are skipped without being opened, and each remaining snapshot becomes one partition that
 * prefers the executors {@link Affinity} gives it (unless the {@code affinity} option is false).
 */
final class PermafrostScan implements Scan, Batch {
  /** The name of the accumulator of bytes fetched from the store that each scan registers. */
  static final String BYTES_FETCHED_ACCUMULATOR = "permafrost.bytesFetched";

  private final ScanPlan plan;
  private List<String> searched = List.of();
  /** The bytes of each snapshot searched, from its manifest (-1 when not read). */
  private final Map<String, Long> sizes = new HashMap<>();
  private List<String> skipped = List.of();
  private LongAccumulator bytesFetched;

  PermafrostScan(ScanPlan plan) {
    this.plan = plan;
  }

  ScanPlan plan() {
    return plan;
  }

  /** The snapshots the last planning kept, by name. */
  List<String> searched() {
    return searched;
  }

  /** The snapshots the last planning skipped from their manifests, by name. */
  List<String> skipped() {
    return skipped;
  }

  /** The bytes the scan's tasks fetched from the store, over all executors (null before planning). */
  LongAccumulator bytesFetched() {
    return bytesFetched;
  }

  @Override
  public StructType readSchema() {
    return plan.readSchema();
  }

  @Override
  public String description() {
    SourceOptions o = plan.options();
    return "Permafrost " + o.describeRepository() + " snapshots=" + o.snapshots + " query=" + o.query
        + (plan.conditions().isEmpty() ? "" : " conditions=" + plan.conditions())
        + (plan.topN() == null ? "" : " topN=" + plan.topN())
        + (plan.limit() < 0 ? "" : " limit=" + plan.limit())
        + (plan.output() == ScanPlan.Output.COUNT ? " count=" + plan.counts() + (plan.groupByIndex() ? " by _index" : "")
            : "")
        + (plan.output() == ScanPlan.Output.HISTOGRAM ? " histogram interval=" + o.intervalMillis + "ms" : "");
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    return new CustomMetric[] {new BytesFetchedMetric()};
  }

  @Override
  public InputPartition[] planInputPartitions() {
    SourceOptions o = plan.options();
    List<SnapshotSelection.Snapshot> snapshots;
    try (BlobStore store = DriverRepository.open(o)) {
      ScanSource source = ScanSource.of(o, store);
      List<String> names = source.units();
      Set<String> indices = Pruning.indices(plan.conditions());
      if (indices != null) {
        names = names.stream().filter(indices::contains).toList();
      }
      long[] time = Pruning.timeBounds(plan.conditions(), o.timestampField);
      // manifests are read for a time range to prune by, and for the sizes that group small snapshots
      boolean describe = time != null || (o.partitionMaxBytes > 0 && names.size() > 1);
      snapshots = !describe ? names.stream().map(n -> new SnapshotSelection.Snapshot(n, -1, -1, null, null)).toList()
          : SnapshotSelection.describe(source.source(), names, o.timestampField);
      List<String> kept = new ArrayList<>();
      List<String> pruned = new ArrayList<>();
      for (SnapshotSelection.Snapshot s : snapshots) {
        boolean keep = time == null || (time[0] <= time[1] && s.overlaps(time[0], time[1]));
        (keep ? kept : pruned).add(s.name());
        if (keep) {
          sizes.put(s.name(), s.sizeInBytes());
        }
      }
      this.searched = List.copyOf(kept);
      this.skipped = List.copyOf(pruned);
    } catch (IOException e) {
      throw new UncheckedIOException("permafrost: cannot list the snapshots of " + o.describeRepository() + ": "
          + e.getMessage(), e);
    }
    List<String> executors = o.affinity ? ExecutorLocations.live() : List.of();
    Map<String, List<String>> preferred = Affinity.assign(searched, executors, o.affinityExecutors);
    return Grouping.group(searched, sizes, preferred, o.partitionMaxBytes).toArray(InputPartition[]::new);
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    if (bytesFetched == null) {
      bytesFetched = SparkContext.getOrCreate().longAccumulator(BYTES_FETCHED_ACCUMULATOR);
    }
    return new ReaderFactory(plan, bytesFetched);
  }
}
