/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import java.io.IOException;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.Scorable;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.SimpleCollector;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.unsafe.types.UTF8String;
import org.apache.spark.util.LongAccumulator;

/**
 * Histogram mode: the hits of one snapshot counted per interval of the timestamp field (buckets aligned on the
 * epoch), in Lucene, from the field's doc values; one row per non-empty bucket. Hits without a timestamp are not
 * counted.
 */
final class HistogramReader extends SnapshotReader {
  private final Iterator<Map.Entry<Long, long[]>> buckets;
  private InternalRow row;

  HistogramReader(ScanPlan plan, String index, LongAccumulator bytesFetched) throws IOException {
    super(plan, index, bytesFetched);
    long interval = plan.options().intervalMillis;
    String field = plan.options().timestampField;
    TreeMap<Long, long[]> counts = searcher().search(query, new CollectorManager<BucketCounter, TreeMap<Long, long[]>>() {
      @Override
      public BucketCounter newCollector() {
        return new BucketCounter(field, interval);
      }

      @Override
      public TreeMap<Long, long[]> reduce(Collection<BucketCounter> collectors) {
        TreeMap<Long, long[]> all = new TreeMap<>();
        for (BucketCounter c : collectors) {
          c.counts.forEach((bucket, n) -> all.computeIfAbsent(bucket, b -> new long[1])[0] += n[0]);
        }
        return all;
      }
    });
    this.buckets = counts.entrySet().iterator();
  }

  @Override
  public boolean next() {
    if (!buckets.hasNext()) {
      return false;
    }
    Map.Entry<Long, long[]> e = buckets.next();
    row = new GenericInternalRow(new Object[] {UTF8String.fromString(index), e.getKey() * 1000L, e.getValue()[0]});
    return true;
  }

  @Override
  public InternalRow get() {
    return row;
  }

  /** Counts hits per bucket of the timestamp field. */
  private static final class BucketCounter extends SimpleCollector {
    private final String field;
    private final long interval;
    private final TreeMap<Long, long[]> counts = new TreeMap<>();
    private SortedNumericDocValues values;

    BucketCounter(String field, long interval) {
      this.field = field;
      this.interval = interval;
    }

    @Override
    protected void doSetNextReader(LeafReaderContext context) throws IOException {
      values = DocValues.getSortedNumeric(context.reader(), field);
    }

    @Override
    public void setScorer(Scorable scorer) {}

    @Override
    public void collect(int doc) throws IOException {
      if (values.advanceExact(doc)) {
        long bucket = Math.floorDiv(values.nextValue(), interval) * interval;
        counts.computeIfAbsent(bucket, b -> new long[1])[0]++;
      }
    }

    @Override
    public ScoreMode scoreMode() {
      return ScoreMode.COMPLETE_NO_SCORES;
    }
  }
}
