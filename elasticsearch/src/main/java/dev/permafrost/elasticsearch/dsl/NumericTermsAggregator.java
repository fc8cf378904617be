/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import dev.permafrost.elasticsearch.dsl.AggPartial.Bucket;
import dev.permafrost.elasticsearch.dsl.AggPartial.DoubleTerms;
import dev.permafrost.elasticsearch.dsl.AggPartial.LongTerms;
import java.io.IOException;
import java.util.HashSet;
import java.util.Set;
import org.apache.lucene.index.LeafReaderContext;

/**
 * Terms of a numeric or date field, keyed by the value as its doc values hold it (doubles decoded at the end):
 * {@link LongTerms} or {@link DoubleTerms} by the field's encoding.
 */
abstract sealed class NumericTermsAggregator<P extends AggPartial.Keyed<?, P>> extends BucketAggregator<P>
    permits NumericTermsAggregator.Longs, NumericTermsAggregator.Doubles {
  final FieldValues values;
  /**
   * {@code min_doc_count: 0}: the values of every document of every segment, deleted ones too (as the node reads
   * them), each a bucket under every parent when built, 0 if nothing matched; else null.
   */
  private final Set<Long> everyValue;

  /** The terms aggregator of {@code values}' encoding. */
  static NumericTermsAggregator<?> of(FieldValues values, boolean everyValue, Aggregator[] subs) {
    return values.encoding == Encoding.LONG ? new Longs(values, everyValue, subs)
        : new Doubles(values, everyValue, subs);
  }

  NumericTermsAggregator(FieldValues values, boolean everyValue, Aggregator[] subs) {
    super(subs);
    this.values = values;
    this.everyValue = everyValue ? new HashSet<>() : null;
  }

  @Override
  void setLeaf(LeafReaderContext context) throws IOException {
    if (everyValue != null) {
      values.setLeaf(context.reader());
      for (int doc = 0; doc < context.reader().maxDoc(); doc++) {
        int n = values.load(doc);
        for (int i = 0; i < n; i++) {
          everyValue.add(values.values[i]);
        }
      }
    }
    values.setLeaf(context.reader()); // afresh: doc values go forward only
  }

  @Override
  AggPartial<?>[] build(int ords) {
    if (everyValue != null) {
      for (int parent = 0; parent < ords; parent++) {
        for (long value : everyValue) {
          keyedOrd(parent, value);
        }
      }
    }
    return super.build(ords);
  }

  @Override
  void collect(int doc, int parent) throws IOException {
    int n = values.load(doc);
    long[] v = values.values;
    for (int i = 0; i < n; i++) {
      if (i > 0 && v[i] == v[i - 1]) {
        continue; // a document counts once per term
      }
      collectBucket(doc, keyedOrd(parent, v[i]));
    }
  }

  /** Longs, integers, dates and booleans. */
  static final class Longs extends NumericTermsAggregator<LongTerms> {
    Longs(FieldValues values, boolean everyValue, Aggregator[] subs) {
      super(values, everyValue, subs);
    }

    @Override
    LongTerms newBuckets() {
      return new LongTerms();
    }

    @Override
    void put(LongTerms buckets, long value, Bucket bucket) {
      buckets.map.put(value, bucket);
    }
  }

  /** Doubles and floats, decoded. */
  static final class Doubles extends NumericTermsAggregator<DoubleTerms> {
    Doubles(FieldValues values, boolean everyValue, Aggregator[] subs) {
      super(values, everyValue, subs);
    }

    @Override
    DoubleTerms newBuckets() {
      return new DoubleTerms();
    }

    @Override
    void put(DoubleTerms buckets, long value, Bucket bucket) {
      buckets.map.put(values.encoding.decode(value), bucket);
    }
  }
}
