/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import java.io.IOException;
import java.io.Serial;
import java.io.UncheckedIOException;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.util.LongAccumulator;

/** Creates, on an executor, the reader of one snapshot for the scan's kind of output. */
final class ReaderFactory implements PartitionReaderFactory {
  @Serial private static final long serialVersionUID = 1L;

  private final ScanPlan plan;
  private final LongAccumulator bytesFetched;

  ReaderFactory(ScanPlan plan, LongAccumulator bytesFetched) {
    this.plan = plan;
    this.bytesFetched = bytesFetched;
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    String[] snapshots = ((SnapshotPartition) partition).snapshots();
    if (snapshots.length == 1) {
      return open(snapshots[0]);
    }
    return new GroupReader(snapshots, this::open);
  }

  /** The reader of one snapshot's rows. */
  private SnapshotReader open(String snapshot) {
    try {
      return switch (plan.output()) {
        case HITS -> new HitReader(plan, snapshot, bytesFetched);
        case COUNT -> new CountReader(plan, snapshot, bytesFetched);
        case HISTOGRAM -> new HistogramReader(plan, snapshot, bytesFetched);
      };
    } catch (IOException e) {
      throw new UncheckedIOException("permafrost: cannot search snapshot '" + snapshot + "' of "
          + plan.options().describeRepository() + ": " + e.getMessage(), e);
    }
  }
}
