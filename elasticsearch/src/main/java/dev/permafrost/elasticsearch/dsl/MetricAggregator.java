/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import dev.permafrost.elasticsearch.dsl.AggPartial.Stats;
import java.io.IOException;
import java.util.Arrays;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.util.ArrayUtil;

/** Count, sum, min and max of a field's values per parent bucket (a keyword's values are only counted). */
final class MetricAggregator extends Aggregator {
  private final FieldValues values;
  private Stats[] stats = new Stats[1];

  MetricAggregator(FieldValues values) {
    super(new Aggregator[0]);
    this.values = values;
  }

  @Override
  void setLeaf(LeafReaderContext context) throws IOException {
    values.setLeaf(context.reader());
  }

  @Override
  void collect(int doc, int ord) throws IOException {
    int n = values.load(doc);
    if (n == 0) {
      return;
    }
    if (ord >= stats.length) {
      stats = ArrayUtil.grow(stats, ord + 1);
    }
    Stats s = stats[ord];
    if (s == null) {
      s = stats[ord] = new Stats();
    }
    if (values.encoding == Encoding.ORDINALS) {
      s.count += n;
      return;
    }
    long[] v = values.values;
    for (int i = 0; i < n; i++) {
      s.add(values.encoding.decode(v[i]));
    }
  }

  @Override
  AggPartial<?>[] build(int ords) {
    return Arrays.copyOf(stats, ords, AggPartial[].class);
  }
}
