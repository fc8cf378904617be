/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;

/**
 * The rows of several snapshots, one snapshot after the other: each snapshot's own reader is opened when the one
 * before it is done (one lease at a time) and gives exactly the rows it would give alone, so a pushed-down count
 * gives one row per snapshot and a top-N or limit at most N rows per snapshot; Spark's final aggregate, sort and limit
 * over all partitions keep the answer exact. The bytes fetched add up over the snapshots.
 */
final class GroupReader implements PartitionReader<InternalRow> {
  /** Opens the reader of one snapshot. */
  interface Opener {
    SnapshotReader open(String snapshot) throws IOException;
  }

  private final String[] snapshots;
  private final Opener opener;
  private int next;
  private SnapshotReader current;
  private long fetchedByClosed;

  GroupReader(String[] snapshots, Opener opener) {
    assert snapshots.length > 0;
    this.snapshots = snapshots;
    this.opener = opener;
  }

  @Override
  public boolean next() throws IOException {
    for (;;) {
      if (current != null && current.next()) {
        return true;
      }
      closeCurrent();
      if (next == snapshots.length) {
        return false;
      }
      current = opener.open(snapshots[next++]);
    }
  }

  @Override
  public InternalRow get() {
    return current.get();
  }

  private void closeCurrent() throws IOException {
    if (current != null) {
      current.close();
      fetchedByClosed += fetched(current);
      current = null;
    }
  }

  private static long fetched(SnapshotReader reader) {
    for (CustomTaskMetric m : reader.currentMetricsValues()) {
      if (m.name().equals(BytesFetchedMetric.NAME)) {
        return m.value();
      }
    }
    return 0;
  }

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    long value = fetchedByClosed + (current == null ? 0 : fetched(current));
    return new CustomTaskMetric[] {new CustomTaskMetric() {
      @Override
      public String name() {
        return BytesFetchedMetric.NAME;
      }

      @Override
      public long value() {
        return value;
      }
    }};
  }

  @Override
  public void close() throws IOException {
    try {
      closeCurrent();
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
