/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.permafrost.elasticsearch.dsl.AggPartial.Bucket;
import dev.permafrost.elasticsearch.dsl.AggPartial.DoubleTerms;
import dev.permafrost.elasticsearch.dsl.AggPartial.FilterBuckets;
import dev.permafrost.elasticsearch.dsl.AggPartial.HistogramBuckets;
import dev.permafrost.elasticsearch.dsl.AggPartial.Keyed;
import dev.permafrost.elasticsearch.dsl.AggPartial.LongTerms;
import dev.permafrost.elasticsearch.dsl.AggPartial.RangeBuckets;
import dev.permafrost.elasticsearch.dsl.AggPartial.Stats;
import dev.permafrost.elasticsearch.dsl.AggPartial.StringTerms;
import dev.permafrost.elasticsearch.dsl.AggPartial.TermCounts;
import java.util.List;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;

/** Each kind of aggregation partial merges with its own kind as the slices' results must add up, worked by hand. */
class AggPartialTest {
  private static Stats stats(double... values) {
    Stats s = new Stats();
    for (double v : values) {
      s.add(v);
    }
    return s;
  }

  @Test
  void statsAddCountsSumsAndKeepTheExtremes() {
    Stats a = stats(3, -1, 10);
    Stats merged = a.merge(stats(7, 20));
    assertSame(a, merged);
    assertEquals(5, merged.count);
    assertEquals(39.0, merged.sum);
    assertEquals(-1.0, merged.min);
    assertEquals(20.0, merged.max);
    Stats empty = new Stats().merge(new Stats());
    assertEquals(0, empty.count);
    assertEquals(Double.POSITIVE_INFINITY, empty.min);
    assertEquals(Double.NEGATIVE_INFINITY, empty.max);
  }

  @Test
  void statsSumsAreCompensated() {
    // 1e16 + 1 + 1 in doubles is 1e16 summed naively; the compensated sum keeps the two ones across the merge
    Stats a = stats(1e16, 1);
    Stats b = stats(1);
    assertEquals(1e16 + 2, a.merge(b).sum);
  }

  @Test
  void termCountsPutRunsTogether() {
    TermCounts a = new TermCounts();
    a.addRun(new BytesRef[] {new BytesRef("a"), new BytesRef("c")}, new long[] {1, 2});
    a.addRun(new BytesRef[0], new long[0]); // an empty run is not kept
    TermCounts b = new TermCounts();
    b.addRun(new BytesRef[] {new BytesRef("b")}, new long[] {5});
    TermCounts merged = a.merge(b);
    assertEquals(2, merged.terms.size());
    assertEquals(new BytesRef("b"), merged.terms.get(1)[0]);
    assertEquals(5, merged.counts.get(1)[0]);
  }

  @Test
  void histogramBucketsOfOneKeyAddUpWithTheirSubAggregations() {
    HistogramBuckets a = new HistogramBuckets();
    a.map.put(0L, new Bucket(2, new AggPartial<?>[] {stats(1, 2), null}));
    a.map.put(10L, new Bucket(1, new AggPartial<?>[] {stats(5), null}));
    HistogramBuckets b = new HistogramBuckets();
    b.map.put(10L, new Bucket(3, new AggPartial<?>[] {null, stats(4)}));
    b.map.put(20L, new Bucket(1, new AggPartial<?>[] {stats(9), null}));
    HistogramBuckets merged = a.merge(b);
    assertSame(a, merged);
    assertEquals(List.of(0L, 10L, 20L), merged.map.keySet().stream().sorted().toList());
    Bucket ten = merged.map.get(10L);
    assertEquals(4, ten.docCount);
    assertEquals(1, ((Stats) ten.subs[0]).count); // the other side had none: kept
    assertEquals(4.0, ((Stats) ten.subs[1]).sum); // this side had none: taken
    assertEquals(2, merged.map.get(0L).docCount);
  }

  @Test
  void eachTermsKindMergesByItsKey() {
    StringTerms s = new StringTerms();
    s.map.put("x", Bucket.empty(0));
    s.map.get("x").docCount = 2;
    StringTerms s2 = new StringTerms();
    s2.map.put("x", new Bucket(3, new AggPartial<?>[0]));
    s2.map.put("y", new Bucket(1, new AggPartial<?>[0]));
    assertEquals(5, s.merge(s2).map.get("x").docCount);
    assertEquals(2, s.map.size());

    LongTerms l = new LongTerms();
    l.map.put(7L, new Bucket(1, new AggPartial<?>[0]));
    LongTerms l2 = new LongTerms();
    l2.map.put(7L, new Bucket(1, new AggPartial<?>[0]));
    assertEquals(2, l.merge(l2).map.get(7L).docCount);

    DoubleTerms d = new DoubleTerms();
    d.map.put(0.5, new Bucket(1, new AggPartial<?>[0]));
    DoubleTerms d2 = new DoubleTerms();
    d2.map.put(1.5, new Bucket(4, new AggPartial<?>[0]));
    DoubleTerms merged = d.merge(d2);
    assertEquals(2, merged.map.size());
    assertEquals(4, merged.map.get(1.5).docCount);
  }

  @Test
  void rangeAndFilterBucketsMergeByPosition() {
    RangeBuckets r = new RangeBuckets();
    r.map.put(0, new Bucket(1, new AggPartial<?>[] {stats(1)}));
    RangeBuckets r2 = new RangeBuckets();
    r2.map.put(0, new Bucket(2, new AggPartial<?>[] {stats(2, 3)}));
    r2.map.put(1, new Bucket(1, new AggPartial<?>[] {null}));
    RangeBuckets merged = r.merge(r2);
    assertEquals(3, merged.map.get(0).docCount);
    assertEquals(6.0, ((Stats) merged.map.get(0).subs[0]).sum);
    assertNull(merged.map.get(1).subs[0]);

    FilterBuckets f = new FilterBuckets();
    f.map.put(0, new Bucket(4, new AggPartial<?>[0]));
    FilterBuckets f2 = new FilterBuckets();
    f2.map.put(0, new Bucket(6, new AggPartial<?>[0]));
    assertEquals(10, f.merge(f2).map.get(0).docCount);
  }

  @Test
  void nothingCollectedOnEitherSideIsTheOther() {
    Stats s = stats(1);
    assertSame(s, AggPartial.merge(null, s));
    assertSame(s, AggPartial.merge(s, null));
    assertNull(AggPartial.merge(null, null));
    AggPartial<?> merged = AggPartial.merge(stats(1), stats(2));
    assertEquals(3.0, ((Stats) merged).sum);
  }

  @Test
  void twoKindsNeverMerge() {
    assertThrows(ClassCastException.class, () -> AggPartial.merge(stats(1), new TermCounts()));
    Keyed<?, ?> histogram = new HistogramBuckets();
    assertThrows(ClassCastException.class, () -> AggPartial.merge(histogram, stats(1)));
  }
}
