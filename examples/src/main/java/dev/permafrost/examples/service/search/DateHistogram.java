/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.search;

import dev.permafrost.store.ColumnPrefetch;
import java.io.IOException;
import java.util.Collection;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.LeafCollector;
import org.apache.lucene.search.Scorable;
import org.apache.lucene.search.ScoreMode;

/**
 * Counts matches per fixed interval of a timestamp's numeric doc values: bucket {@code i} holds
 * {@code [origin + i * interval, origin + (i + 1) * interval)}. Documents outside the buckets, or without a value,
 * are not counted. One collector per slice; {@link #reduce} adds them up.
 */
public final class DateHistogram implements CollectorManager<DateHistogram.Counts, long[]> {
  private final String field;
  private final long origin;
  private final long interval;
  private final int buckets;

  /** Buckets of {@code interval} ms from {@code origin}, {@code buckets} of them, over doc values of {@code field}. */
  public DateHistogram(String field, long origin, long interval, int buckets) {
    if (interval < 1 || buckets < 1) {
      throw new IllegalArgumentException("a histogram needs a positive interval and at least one bucket");
    }
    this.field = field;
    this.origin = origin;
    this.interval = interval;
    this.buckets = buckets;
  }

  @Override
  public Counts newCollector() {
    return new Counts(new long[buckets]);
  }

  @Override
  public long[] reduce(Collection<Counts> collectors) {
    long[] total = new long[buckets];
    for (Counts c : collectors) {
      for (int i = 0; i < buckets; i++) {
        total[i] += c.counts[i];
      }
    }
    return total;
  }

  /** One slice's counts. */
  public final class Counts implements Collector {
    private final long[] counts;

    private Counts(long[] counts) {
      this.counts = counts;
    }

    @Override
    public LeafCollector getLeafCollector(LeafReaderContext context) throws IOException {
      ColumnPrefetch.prefetch(context.reader(), field); // read for every hit: fetched whole, with the query's first reads
      // numeric doc values (this service's own indices) or sorted-numeric (an engine's dates): a document's first,
      // smallest, value counts
      SortedNumericDocValues values = DocValues.getSortedNumeric(context.reader(), field);
      return new LeafCollector() {
        @Override
        public void setScorer(Scorable scorer) {}

        @Override
        public void collect(int doc) throws IOException {
          if (values.advanceExact(doc)) {
            long offset = values.nextValue() - origin;
            if (offset >= 0) {
              long bucket = offset / interval;
              if (bucket < buckets) {
                counts[(int) bucket]++;
              }
            }
          }
        }
      };
    }

    @Override
    public ScoreMode scoreMode() {
      return ScoreMode.COMPLETE_NO_SCORES;
    }
  }
}
