/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import dev.permafrost.elasticsearch.dsl.AggPartial.Bucket;
import dev.permafrost.elasticsearch.dsl.AggPartial.RangeBuckets;
import java.io.IOException;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.util.ArrayUtil;

/** Ranges {@code [from, to)} of a field's values; a document counts once per range it has a value in. */
final class RangeAggregator extends BucketAggregator<RangeBuckets> {
  private final FieldValues values;
  private final double[] from;
  private final double[] to;
  private double[] decoded = new double[4];

  RangeAggregator(FieldValues values, double[] from, double[] to, Aggregator[] subs) {
    super(subs);
    this.values = values;
    this.from = from;
    this.to = to;
  }

  @Override
  void setLeaf(LeafReaderContext context) throws IOException {
    values.setLeaf(context.reader());
  }

  @Override
  void collect(int doc, int parent) throws IOException {
    int n = values.load(doc);
    if (n == 0) {
      return;
    }
    if (n > decoded.length) {
      decoded = new double[ArrayUtil.oversize(n, Double.BYTES)];
    }
    for (int i = 0; i < n; i++) {
      decoded[i] = values.encoding.decode(values.values[i]);
    }
    for (int r = 0; r < from.length; r++) {
      for (int i = 0; i < n; i++) {
        if (decoded[i] >= from[r] && decoded[i] < to[r]) {
          collectBucket(doc, fixedOrd(parent, r, from.length));
          break;
        }
      }
    }
  }

  @Override
  RangeBuckets newBuckets() {
    return new RangeBuckets();
  }

  @Override
  void put(RangeBuckets buckets, long index, Bucket bucket) {
    buckets.map.put((int) index, bucket);
  }

  @Override
  AggPartial<?>[] build(int ords) {
    if (ords > 0) { // every range's bucket under every parent, so that an empty one's sub-aggregations answer as the
      fixedOrd(ords - 1, from.length - 1, from.length); // node's do (a terms' min_doc_count 0 lists every term)
    }
    return super.build(ords);
  }
}
