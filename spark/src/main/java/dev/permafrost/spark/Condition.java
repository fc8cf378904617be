/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.lucene.document.IntPoint;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.FieldExistsQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.PrefixQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TermRangeQuery;
import org.apache.lucene.util.BytesRef;

/**
 * A pushed-down filter in a form the executors turn into a Lucene query: the set of documents for which a Spark
 * predicate is true ({@link PredicateTranslator} builds it with Spark's three-valued logic already applied, so
 * {@link Not} here is a plain complement). Serializable, unlike a Lucene {@link Query}.
 */
sealed interface Condition extends Serializable {

  /** The Lucene query matching this condition's documents in index {@code index}. */
  Query toQuery(String index);

  /** A keyword equal to one of {@code values}. */
  record Terms(String field, List<String> values) implements Condition {
    @Override
    public Query toQuery(String index) {
      if (values.size() == 1) {
        return new TermQuery(new Term(field, values.get(0)));
      }
      List<BytesRef> terms = new ArrayList<>(values.size());
      values.forEach(v -> terms.add(new BytesRef(v)));
      return new TermInSetQuery(field, terms);
    }
  }

  /** A keyword within a range of terms (UTF-8 byte order, as Spark compares strings); a null bound is open. */
  record TermRange(String field, String lower, boolean includeLower, String upper, boolean includeUpper)
      implements Condition {
    @Override
    public Query toQuery(String index) {
      return new TermRangeQuery(field, lower == null ? null : new BytesRef(lower),
          upper == null ? null : new BytesRef(upper), includeLower, includeUpper);
    }
  }

  /** A keyword starting with {@code prefix}. */
  record Prefix(String field, String prefix) implements Condition {
    @Override
    public Query toQuery(String index) {
      return new PrefixQuery(new Term(field, prefix));
    }
  }

  /** A long (or int) point within {@code [lower, upper]}, both inclusive. */
  record PointRange(String field, boolean intPoint, long lower, long upper) implements Condition {
    @Override
    public Query toQuery(String index) {
      if (lower > upper) {
        return new MatchNoDocsQuery(field + " in an empty range");
      }
      if (intPoint) {
        long lo = Math.max(lower, Integer.MIN_VALUE);
        long hi = Math.min(upper, Integer.MAX_VALUE);
        return lo > hi ? new MatchNoDocsQuery(field + " outside the int range")
            : IntPoint.newRangeQuery(field, (int) lo, (int) hi);
      }
      return LongPoint.newRangeQuery(field, lower, upper);
    }
  }

  /** A long (or int) point equal to one of {@code values}. */
  record PointSet(String field, boolean intPoint, List<Long> values) implements Condition {
    @Override
    public Query toQuery(String index) {
      if (intPoint) {
        int[] ints = values.stream().filter(v -> v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE)
            .mapToInt(Long::intValue).toArray();
        return IntPoint.newSetQuery(field, ints);
      }
      return LongPoint.newSetQuery(field, values.stream().mapToLong(Long::longValue).toArray());
    }
  }

  /** A document with a value for {@code field}. */
  record Exists(String field) implements Condition {
    @Override
    public Query toQuery(String index) {
      return new FieldExistsQuery(field);
    }
  }

  /** Every document of the named indices, none of the others (a filter on {@code _index}). */
  record Indices(Set<String> names) implements Condition {
    @Override
    public Query toQuery(String index) {
      return names.contains(index) ? MatchAllDocsQuery.INSTANCE : new MatchNoDocsQuery("index " + index + " not selected");
    }
  }

  /** Documents matching every one of {@code all}. */
  record And(List<Condition> all) implements Condition {
    @Override
    public Query toQuery(String index) {
      BooleanQuery.Builder b = new BooleanQuery.Builder();
      all.forEach(c -> b.add(c.toQuery(index), Occur.FILTER));
      return b.build();
    }
  }

  /** Documents matching any of {@code any}. */
  record Or(List<Condition> any) implements Condition {
    @Override
    public Query toQuery(String index) {
      BooleanQuery.Builder b = new BooleanQuery.Builder();
      any.forEach(c -> b.add(c.toQuery(index), Occur.SHOULD));
      return b.setMinimumNumberShouldMatch(1).build();
    }
  }

  /** Documents not matching {@code negated} (a complement: documents without the field included). */
  record Not(Condition negated) implements Condition {
    @Override
    public Query toQuery(String index) {
      return new BooleanQuery.Builder().add(MatchAllDocsQuery.INSTANCE, Occur.FILTER)
          .add(negated.toQuery(index), Occur.MUST_NOT).build();
    }
  }

  /** Every document. */
  record All() implements Condition {
    @Override
    public Query toQuery(String index) {
      return MatchAllDocsQuery.INSTANCE;
    }
  }

  /** No document. */
  record None() implements Condition {
    @Override
    public Query toQuery(String index) {
      return new MatchNoDocsQuery("a pushed filter matches nothing");
    }
  }
}
