/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import java.io.IOException;
import java.util.Objects;
import org.apache.lucene.index.DocValuesType;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.ConstantScoreQuery;
import org.apache.lucene.search.DisjunctionMaxQuery;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.Weight;

/**
 * A query on one field that runs, segment by segment, from the field's index (its postings or points) where the
 * segment has one, and otherwise from its doc values: Elasticsearch's logsdb and time_series indices keep some
 * fields in doc values only (time-series dimensions and metrics from 9.3; {@code @timestamp} and {@code host.name}
 * with a skipper instead of points from 9.4), and older segments of the same index may still have the index. A
 * segment with neither for the field matches nothing; one with only doc values where no doc-values form of the query
 * exists ({@code docValues} null: a prefix or a wildcard) fails naming the field, rather than silently matching
 * nothing.
 */
final class IndexedOrDocValuesQuery extends Query {
  private final String field;
  private final Query indexed;
  private final Query docValues;

  /**
   * @param field the one field both queries read
   * @param indexed the query over the field's postings or points
   * @param docValues the same query over its doc values, or null if there is none
   */
  IndexedOrDocValuesQuery(String field, Query indexed, Query docValues) {
    this.field = Objects.requireNonNull(field);
    this.indexed = Objects.requireNonNull(indexed);
    this.docValues = docValues;
  }

  @Override
  public Query rewrite(IndexSearcher searcher) throws IOException {
    Query i = indexed.rewrite(searcher);
    Query d = docValues == null ? null : docValues.rewrite(searcher);
    return i != indexed || d != docValues ? new IndexedOrDocValuesQuery(field, i, d) : this;
  }

  @Override
  public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) throws IOException {
    Weight indexedWeight = indexed.createWeight(searcher, scoreMode, boost);
    Weight docValuesWeight = docValues == null ? null : docValues.createWeight(searcher, scoreMode, boost);
    return new Weight(this) {
      /** The weight that reads this segment, or null if the segment has nothing of the field. */
      private Weight choose(LeafReaderContext context) {
        FieldInfo info = context.reader().getFieldInfos().fieldInfo(field);
        if (info == null) {
          return null;
        }
        if (info.getPointDimensionCount() > 0 || info.getIndexOptions() != IndexOptions.NONE) {
          return indexedWeight;
        }
        if (info.getDocValuesType() == DocValuesType.NONE) {
          return null;
        }
        if (docValuesWeight == null) {
          throw new IllegalArgumentException("field '" + field + "' has only doc values in segment "
              + context.reader() + " (no postings or points), and query " + indexed + " has no doc-values form:"
              + " query it by terms or ranges");
        }
        return docValuesWeight;
      }

      @Override
      public ScorerSupplier scorerSupplier(LeafReaderContext context) throws IOException {
        Weight w = choose(context);
        return w == null ? null : w.scorerSupplier(context);
      }

      @Override
      public Explanation explain(LeafReaderContext context, int doc) throws IOException {
        Weight w = choose(context);
        return w == null ? Explanation.noMatch("no field '" + field + "' in this segment") : w.explain(context, doc);
      }

      @Override
      public int count(LeafReaderContext context) throws IOException {
        Weight w = choose(context);
        return w == null ? 0 : w.count(context);
      }

      @Override
      public boolean isCacheable(LeafReaderContext context) {
        Weight w = choose(context);
        return w == null || w.isCacheable(context);
      }
    };
  }

  /**
   * {@code query} with each of these queries in it (under boolean, boost, constant-score and disjunction-max queries)
   * replaced by its indexed form: what a highlighter matches against the analyzed text of one document.
   */
  static Query indexedForm(Query query) {
    return switch (query) {
      case IndexedOrDocValuesQuery q -> indexedForm(q.indexed);
      case BoostQuery q -> new BoostQuery(indexedForm(q.getQuery()), q.getBoost());
      case ConstantScoreQuery q -> new ConstantScoreQuery(indexedForm(q.getQuery()));
      case DisjunctionMaxQuery q -> new DisjunctionMaxQuery(q.getDisjuncts().stream()
          .map(IndexedOrDocValuesQuery::indexedForm).toList(), q.getTieBreakerMultiplier());
      case BooleanQuery q -> {
        BooleanQuery.Builder b = new BooleanQuery.Builder().setMinimumNumberShouldMatch(q.getMinimumNumberShouldMatch());
        for (BooleanClause c : q.clauses()) {
          b.add(indexedForm(c.query()), c.occur());
        }
        yield b.build();
      }
      default -> query;
    };
  }

  @Override
  public void visit(QueryVisitor visitor) {
    indexed.visit(visitor);
  }

  @Override
  public String toString(String defaultField) {
    return indexed.toString(defaultField);
  }

  @Override
  public boolean equals(Object o) {
    return sameClassAs(o) && field.equals(((IndexedOrDocValuesQuery) o).field)
        && indexed.equals(((IndexedOrDocValuesQuery) o).indexed)
        && Objects.equals(docValues, ((IndexedOrDocValuesQuery) o).docValues);
  }

  @Override
  public int hashCode() {
    return Objects.hash(classHash(), field, indexed, docValues);
  }
}
