/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import dev.permafrost.snapshot.PointRange;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.ConstantScoreQuery;
import org.apache.lucene.search.IndexOrDocValuesQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.PointRangeQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;

/**
 * Whether an index can match a query, from the point ranges its manifest records, without opening it
 * (Elasticsearch's can-match phase). Only ranges every hit must fall in count: a {@link PointRangeQuery} that is the
 * query, or a required ({@code MUST} or {@code FILTER}) clause of a {@link BooleanQuery}, through constant-score and
 * boost wrappers and {@link IndexOrDocValuesQuery} (what {@code LongField.newRangeQuery} builds), or what any other
 * query visits as required ({@link Query#visit}). An index whose
 * range on a field is not recorded can always match: unknown means search.
 */
final class CanMatch {
  private CanMatch() {}

  /** The ranges every hit of {@code query} falls in, by field: {lower, upper} packed values (intersected). */
  static Map<String, PointRangeQuery> requiredRanges(Query query) {
    Map<String, PointRangeQuery> ranges = new HashMap<>();
    collect(query, ranges);
    return ranges;
  }

  private static void collect(Query q, Map<String, PointRangeQuery> ranges) {
    if (q instanceof PointRangeQuery p) {
      ranges.merge(p.getField(), p, CanMatch::intersect);
    } else if (q instanceof IndexOrDocValuesQuery io) {
      collect(io.getIndexQuery(), ranges);
    } else if (q instanceof ConstantScoreQuery c) {
      collect(c.getQuery(), ranges);
    } else if (q instanceof BoostQuery b) {
      collect(b.getQuery(), ranges);
    } else if (q instanceof BooleanQuery bq) {
      for (BooleanClause clause : bq.clauses()) {
        if (clause.occur() == BooleanClause.Occur.MUST || clause.occur() == BooleanClause.Occur.FILTER) {
          collect(clause.query(), ranges);
        }
      }
    } else if (q != null) {
      // any other query, by Lucene's visitor contract: what it visits as required (the visitor itself, or a MUST or
      // FILTER sub-visitor) every hit matches; an application's wrapper (one that picks points or doc values per
      // segment, say) is seen through this way
      q.visit(new QueryVisitor() {
        @Override
        public void visitLeaf(Query leaf) {
          if (leaf instanceof PointRangeQuery p) {
            ranges.merge(p.getField(), p, CanMatch::intersect);
          }
        }

        @Override
        public QueryVisitor getSubVisitor(BooleanClause.Occur occur, Query parent) {
          return occur == BooleanClause.Occur.MUST || occur == BooleanClause.Occur.FILTER ? this : EMPTY_VISITOR;
        }
      });
    }
  }

  /** Keeps the first of two ranges on one field unless they disagree on shape (then neither narrows the other). */
  private static PointRangeQuery intersect(PointRangeQuery a, PointRangeQuery b) {
    if (a.getNumDims() != b.getNumDims() || a.getBytesPerDim() != b.getBytesPerDim()) {
      return a;
    }
    int dims = a.getNumDims();
    int bytes = a.getBytesPerDim();
    byte[] lower = a.getLowerPoint().clone();
    byte[] upper = a.getUpperPoint().clone();
    for (int d = 0; d < dims; d++) {
      int from = d * bytes;
      int to = from + bytes;
      if (Arrays.compareUnsigned(b.getLowerPoint(), from, to, lower, from, to) > 0) {
        System.arraycopy(b.getLowerPoint(), from, lower, from, bytes);
      }
      if (Arrays.compareUnsigned(b.getUpperPoint(), from, to, upper, from, to) < 0) {
        System.arraycopy(b.getUpperPoint(), from, upper, from, bytes);
      }
    }
    return new PointRangeQuery(a.getField(), lower, upper, dims) {
      @Override
      protected String toString(int dimension, byte[] value) {
        return Arrays.toString(value);
      }
    };
  }

  /** Whether an index with the recorded {@code pointRanges} may have a hit within every one of {@code required}. */
  static boolean canMatch(Map<String, PointRange> pointRanges, Map<String, PointRangeQuery> required) {
    for (PointRangeQuery q : required.values()) {
      PointRange recorded = pointRanges.get(q.getField());
      if (recorded == null || recorded.numDimensions() != q.getNumDims() || recorded.bytesPerDimension() != q.getBytesPerDim()) {
        continue; // unknown: it may match
      }
      int bytes = q.getBytesPerDim();
      for (int d = 0; d < q.getNumDims(); d++) {
        int from = d * bytes;
        int to = from + bytes;
        if (Arrays.compareUnsigned(q.getUpperPoint(), from, to, recorded.minPackedValue(), from, to) < 0
            || Arrays.compareUnsigned(q.getLowerPoint(), from, to, recorded.maxPackedValue(), from, to) > 0) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * Whether {@code query} matches every document of an index with the recorded {@code pointRanges} and {@code maxDoc}
   * documents (deleted ones too), as those show without opening it: all documents, or a {@link PointRangeQuery} that
   * holds the index's whole recorded range of a field every document has a point of, through the wrappers
   * {@link #requiredRanges} sees through, or a {@link BooleanQuery} of only required clauses that each do. False when
   * not sure.
   */
  static boolean matchesEveryDocument(Query query, Map<String, PointRange> pointRanges, long maxDoc) {
    if (query instanceof MatchAllDocsQuery) {
      return true;
    } else if (query instanceof IndexOrDocValuesQuery io) {
      return matchesEveryDocument(io.getIndexQuery(), pointRanges, maxDoc);
    } else if (query instanceof ConstantScoreQuery c) {
      return matchesEveryDocument(c.getQuery(), pointRanges, maxDoc);
    } else if (query instanceof BoostQuery b) {
      return matchesEveryDocument(b.getQuery(), pointRanges, maxDoc);
    } else if (query instanceof BooleanQuery bq) {
      if (bq.clauses().isEmpty() || bq.getMinimumNumberShouldMatch() > 0) {
        return false; // matches nothing
      }
      for (BooleanClause clause : bq.clauses()) {
        if ((clause.occur() != BooleanClause.Occur.MUST && clause.occur() != BooleanClause.Occur.FILTER)
            || !matchesEveryDocument(clause.query(), pointRanges, maxDoc)) {
          return false;
        }
      }
      return true;
    } else if (query instanceof PointRangeQuery q) {
      PointRange recorded = pointRanges.get(q.getField());
      if (recorded == null || recorded.docCount() != maxDoc || maxDoc <= 0 || recorded.numDimensions() != q.getNumDims()
          || recorded.bytesPerDimension() != q.getBytesPerDim()) {
        return false;
      }
      int bytes = q.getBytesPerDim();
      for (int d = 0; d < q.getNumDims(); d++) {
        int from = d * bytes;
        int to = from + bytes;
        if (Arrays.compareUnsigned(q.getLowerPoint(), from, to, recorded.minPackedValue(), from, to) > 0
            || Arrays.compareUnsigned(q.getUpperPoint(), from, to, recorded.maxPackedValue(), from, to) < 0) {
          return false;
        }
      }
      return true;
    }
    return false;
  }
}
