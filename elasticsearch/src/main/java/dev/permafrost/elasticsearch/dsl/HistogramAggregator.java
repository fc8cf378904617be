/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import dev.permafrost.elasticsearch.dsl.AggPartial.Bucket;
import dev.permafrost.elasticsearch.dsl.AggPartial.HistogramBuckets;
import java.io.IOException;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.util.ArrayUtil;

/**
 * Histogram buckets: a value's bucket index is computed arithmetically (fixed intervals, numeric histograms) or by
 * a {@link DateRounding} (whose last bucket is kept at hand: consecutive values mostly share it). Under parent 0
 * the ordinal of an index near the first one seen is found in an array, not a hash.
 */
final class HistogramAggregator extends BucketAggregator<HistogramBuckets> {
  /** The most dense slots before falling back to the hash. */
  private static final int DENSE_SLOTS = 1 << 16;
  private final FieldValues values;
  /** A date rounding, null for a numeric histogram. */
  private final DateRounding rounding;
  private final long dateInterval;
  private final long dateOrigin;
  private final double interval;
  private final double offset;
  private long lastStart = 1;
  private long lastEnd = 0;
  private boolean based;
  private long base;
  private int[] slotOrds = new int[0];

  HistogramAggregator(FieldValues values, DateRounding rounding, double interval, double offset, Aggregator[] subs) {
    super(subs);
    this.values = values;
    this.rounding = rounding;
    this.dateInterval = rounding == null ? 0 : rounding.interval();
    this.dateOrigin = rounding == null ? 0 : rounding.origin();
    this.interval = interval;
    this.offset = offset;
  }

  @Override
  void setLeaf(LeafReaderContext context) throws IOException {
    values.setLeaf(context.reader());
  }

  /** The bucket index of a value: arithmetic indices, or a date rounding's key. */
  private long index(long value) {
    if (dateInterval > 0) {
      return Math.floorDiv(value - dateOrigin, dateInterval);
    }
    if (rounding == null) {
      return (long) Math.floor((values.encoding.decode(value) - offset) / interval);
    }
    if (value >= lastStart && value < lastEnd) {
      return lastStart;
    }
    long key = rounding.round(value);
    lastStart = key;
    lastEnd = rounding.next(key);
    return key;
  }

  @Override
  void collect(int doc, int parent) throws IOException {
    int n = values.load(doc);
    long[] v = values.values;
    long previous = 0;
    for (int i = 0; i < n; i++) {
      long index = index(v[i]);
      if (i > 0 && index == previous) {
        continue; // a document counts once per bucket
      }
      previous = index;
      collectBucket(doc, parent == 0 && (rounding == null || dateInterval > 0) ? denseOrd(index)
          : keyedOrd(parent, index));
    }
  }

  private int denseOrd(long index) {
    if (!based) {
      based = true;
      base = index;
    }
    long d = index - base;
    long slot = d >= 0 ? 2 * d : -2 * d - 1;
    if (slot < 0 || slot >= DENSE_SLOTS) {
      return keyedOrd(0, index);
    }
    int s = (int) slot;
    if (s >= slotOrds.length) {
      slotOrds = ArrayUtil.grow(slotOrds, s + 1);
    }
    int ord = slotOrds[s] - 1;
    if (ord < 0) {
      ord = newOrd(0, index);
      slotOrds[s] = ord + 1;
    }
    return ord;
  }

  @Override
  HistogramBuckets newBuckets() {
    return new HistogramBuckets();
  }

  @Override
  void put(HistogramBuckets buckets, long index, Bucket bucket) {
    // a date's key, or a numeric index
    buckets.map.put(dateInterval > 0 ? index * dateInterval + dateOrigin : index, bucket);
  }
}
