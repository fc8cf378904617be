/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import dev.permafrost.catalog.Lease;
import dev.permafrost.elasticsearch.IndexMapping;
import java.io.IOException;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.util.LongAccumulator;

/**
 * The part every reader of one snapshot shares: it leases the snapshot's reader from the executor's pool (mounting
 * it on first use), builds the scan's query for it, and on close gives the reader back and reports the bytes the
 * executor's cache fetched from the store for this snapshot meanwhile (to the scan's accumulator and as the task's
 * {@link BytesFetchedMetric}).
 */
abstract class SnapshotReader implements PartitionReader<InternalRow> {
  protected final ScanPlan plan;
  protected final String index;
  protected final Query query;
  private final ExecutorNode node;
  private final Lease lease;
  private final LongAccumulator bytesFetched;
  private final long fetchedBefore;
  private boolean closed;
  private long finalFetched;

  SnapshotReader(ScanPlan plan, String index, LongAccumulator bytesFetched) throws IOException {
    this.plan = plan;
    this.index = index;
    this.bytesFetched = bytesFetched;
    this.node = ExecutorNode.get(plan.options());
    this.fetchedBefore = node.bytesFetched(index);
    this.query = QueryBuilder.build(QueryBuilder.parse(plan.options().query, plan.options().defaultField, plan.fields()),
        plan.conditions(), index);
    this.lease = node.acquire(plan.options(), index);
  }

  /** The engine index's mapping, for a {@code _source} rebuilt from doc values; null for a Permafrost snapshot. */
  protected final IndexMapping sourceMapping() throws IOException {
    return node.engineMapping(plan.options(), index);
  }

  protected final IndexSearcher searcher() {
    return lease.searcher();
  }

  private long fetchedSoFar() {
    return Math.max(0, node.bytesFetched(index) - fetchedBefore);
  }

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    long value = closed ? finalFetched : fetchedSoFar();
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
    if (!closed) {
      lease.close();
      finalFetched = fetchedSoFar();
      closed = true;
      if (bytesFetched != null) {
        bytesFetched.add(finalFetched);
      }
    }
  }
}
