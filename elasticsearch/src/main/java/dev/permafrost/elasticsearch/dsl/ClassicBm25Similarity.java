/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.TermStatistics;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.search.similarities.Similarity;

/**
 * BM25 on the scale Elasticsearch scores with: Lucene's {@link BM25Similarity} ({@code k1} 1.2, {@code b} 0.75, the
 * overlapping tokens of synonyms not counted in a field's length) times {@code k1 + 1}, the factor Lucene dropped from
 * its formula in 8.0 and Elasticsearch keeps, so that a hit's {@code _score} is the node's. The norms are Lucene's,
 * as Elasticsearch writes them. Thread-safe.
 */
final class ClassicBm25Similarity extends Similarity {
  /** Elasticsearch's default similarity. */
  static final ClassicBm25Similarity INSTANCE = new ClassicBm25Similarity();

  private static final float K1 = 1.2f;
  private final BM25Similarity bm25 = new BM25Similarity(K1, 0.75f, true);

  private ClassicBm25Similarity() {
    super(true);
  }

  @Override
  public SimScorer scorer(float boost, CollectionStatistics collectionStats, TermStatistics... termStats) {
    return bm25.scorer(boost * (K1 + 1), collectionStats, termStats);
  }

  @Override
  public String toString() {
    return "ClassicBM25(k1=" + K1 + ",b=0.75)";
  }
}
