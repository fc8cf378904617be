/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import dev.permafrost.elasticsearch.dsl.AggPartial.Bucket;
import dev.permafrost.elasticsearch.dsl.AggPartial.FilterBuckets;
import java.io.IOException;
import org.apache.lucene.index.IndexReaderContext;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.TwoPhaseIterator;
import org.apache.lucene.search.Weight;

/**
 * Documents matching each of some queries (a {@code filter} is one), and optionally those matching none. Each
 * query's weight is made once per slice, over the top-level reader of the segments.
 */
final class FiltersAggregator extends BucketAggregator<FilterBuckets> {
  private final Query[] queries;
  private final boolean other;
  private final int n;
  private final Matcher[] matchers;
  private Weight[] weights;
  private IndexReaderContext top;

  FiltersAggregator(Query[] queries, boolean other, Aggregator[] subs) {
    super(subs);
    this.queries = queries;
    this.other = other;
    this.n = queries.length + (other ? 1 : 0);
    this.matchers = new Matcher[queries.length];
  }

  @Override
  void setLeaf(LeafReaderContext context) throws IOException {
    IndexReaderContext topContext = ReaderUtil.getTopLevelContext(context);
    if (weights == null || top != topContext) {
      IndexSearcher searcher = new IndexSearcher(topContext);
      searcher.setQueryCache(null);
      weights = new Weight[queries.length];
      for (int i = 0; i < queries.length; i++) {
        weights[i] = searcher.createWeight(searcher.rewrite(queries[i]), ScoreMode.COMPLETE_NO_SCORES, 1f);
      }
      top = topContext;
    }
    for (int i = 0; i < queries.length; i++) {
      matchers[i] = new Matcher(weights[i].scorerSupplier(context));
    }
  }

  @Override
  void collect(int doc, int parent) throws IOException {
    boolean any = false;
    for (int i = 0; i < matchers.length; i++) {
      if (matchers[i].matches(doc)) {
        any = true;
        collectBucket(doc, fixedOrd(parent, i, n));
      }
    }
    if (other && !any) {
      collectBucket(doc, fixedOrd(parent, queries.length, n));
    }
  }

  @Override
  FilterBuckets newBuckets() {
    return new FilterBuckets();
  }

  @Override
  void put(FilterBuckets buckets, long index, Bucket bucket) {
    buckets.map.put((int) index, bucket);
  }

  @Override
  AggPartial<?>[] build(int ords) {
    if (ords > 0) { // every filter's bucket under every parent, so that an empty one's sub-aggregations answer as
      fixedOrd(ords - 1, n - 1, n); // the node's do (a terms' min_doc_count 0 lists every term; issue 54)
    }
    return super.build(ords);
  }

  /** Whether documents of a segment, in increasing order, match a query. */
  static final class Matcher {
    private final DocIdSetIterator approximation;
    private final TwoPhaseIterator twoPhase;
    private int lastDoc = -1;
    private boolean lastMatch;

    Matcher(ScorerSupplier supplier) throws IOException {
      if (supplier == null) {
        approximation = null;
        twoPhase = null;
        return;
      }
      Scorer scorer = supplier.get(Long.MAX_VALUE);
      twoPhase = scorer.twoPhaseIterator();
      approximation = twoPhase == null ? scorer.iterator() : twoPhase.approximation();
    }

    boolean matches(int doc) throws IOException {
      if (doc == lastDoc) {
        return lastMatch;
      }
      lastDoc = doc;
      if (approximation == null) {
        return lastMatch = false;
      }
      int at = approximation.docID();
      if (at < doc) {
        at = approximation.advance(doc);
      }
      lastMatch = at == doc && (twoPhase == null || twoPhase.matches());
      return lastMatch;
    }
  }
}
