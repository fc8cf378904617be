/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.FieldExistsQuery;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.unsafe.types.UTF8String;
import org.apache.spark.util.LongAccumulator;

/**
 * A pushed-down {@code count(*)} (or {@code count(field)}) of one snapshot: one row of counts that Lucene computes
 * ({@code IndexSearcher.count}, which often needs no iteration at all), preceded by {@code _index} when grouped by
 * it. Spark sums the partitions' rows.
 */
final class CountReader extends SnapshotReader {
  private boolean done;

  CountReader(ScanPlan plan, String index, LongAccumulator bytesFetched) throws IOException {
    super(plan, index, bytesFetched);
  }

  @Override
  public boolean next() {
    if (done) {
      return false;
    }
    done = true;
    return true;
  }

  @Override
  public InternalRow get() {
    try {
      int offset = plan.groupByIndex() ? 1 : 0;
      Object[] values = new Object[offset + plan.counts().size()];
      if (plan.groupByIndex()) {
        values[0] = UTF8String.fromString(index);
      }
      for (int i = 0; i < plan.counts().size(); i++) {
        String field = plan.counts().get(i);
        values[offset + i] = (long) searcher().count(field == null ? query
            : new BooleanQuery.Builder().add(query, Occur.MUST).add(new FieldExistsQuery(field), Occur.FILTER).build());
      }
      return new GenericInternalRow(values);
    } catch (IOException e) {
      throw new UncheckedIOException("permafrost: counting hits in snapshot '" + index + "' failed: "
          + e.getMessage(), e);
    }
  }
}
