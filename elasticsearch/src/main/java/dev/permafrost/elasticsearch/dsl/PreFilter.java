/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.Lease;
import dev.permafrost.elasticsearch.IndexMapping;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.PointValues;
import org.apache.lucene.search.PointRangeQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;

/**
 * A node's pre-filter ("can match"), which shapes an empty answer: it runs for a search of more than one shard sorted
 * first on a field ({@code _doc} too, whatever its {@code missing}), without aggregations, and skips each shard where
 * the request's query rewrites to match nothing there. Where it skips every shard, the node answers {@code max_score}
 * {@code 0.0} rather than {@code null}, and a total of {@code {0, eq}} even untracked or tracked up to 0; where it
 * skips some, or the search has one shard, the answer is the usual one (all checked on a 9.3.3 node).
 *
 * <p>What rewrites to nothing, as the node rewrites a shard's query before it searches (its query clauses, not their
 * Lucene form: a {@code query_string}'s date range, a {@code term} on a date, a {@code dis_max} are never rewritten):
 * {@code match_none}; a {@code bool} that requires such a query, excludes {@code match_all}, or has only
 * {@code should} clauses (and {@code must_not}) that all are such; a {@code constant_score} of one; a field query
 * ({@code exists}, {@code term}, {@code terms}, {@code range}, {@code prefix}, {@code wildcard}, {@code match},
 * {@code match_phrase}) on a field the shard's index does not map; and a {@code range} on a date field with a bound
 * outside the values the shard holds (its points' least and greatest, deleted documents' too), or on a date field the
 * shard holds no value of (inferred: every shard of the node's data holds dates). A {@code range} on a number is never
 * rewritten by its values (a {@code seq} range above every shard's values skips none).
 *
 * <p>The rule reads the query as parsed ({@link QueryNode}), a range's bounds as the range query reads them (format,
 * time zone, date math and its rounding), each built alone by the index's {@link QueryTranslator}.
 *
 * @param query the request's query as parsed, read only by the pre-filter (null: the pre-filter does not run)
 */
record PreFilter(QueryNode query) {
  /** The pre-filter does not run (aggregations, a sort on the score, no sort). */
  static final PreFilter NONE = new PreFilter(null);

  /**
   * The pre-filter of a request whose query is {@code query} and sort {@code sort}: the query where the node's
   * pre-filter runs for it (a sort first on a field or {@code _doc}, no aggregations), else {@link #NONE}.
   */
  static PreFilter of(QueryNode query, SortSpec sort, boolean aggregates) {
    return !aggregates && sort.fieldFirst() && query != null ? new PreFilter(query) : NONE;
  }

  /** Whether the node's pre-filter skips every shard of {@code indices} (their readers asked of {@code catalog}). */
  boolean skipsEveryShard(List<IndexShards> indices, Catalog catalog) throws IOException {
    if (query == null || indices.stream().mapToInt(i -> i.shards().size()).sum() < 2) {
      return false; // one shard: the node runs no pre-filter
    }
    for (IndexShards index : indices) {
      if (rewritesToNothing(query, index.mapping(), null)) {
        continue; // on its mapping alone: no reader needed
      }
      for (String shard : index.shards()) {
        try (Lease lease = catalog.acquire(shard)) {
          if (!rewritesToNothing(query, index.mapping(), lease.reader())) {
            return false;
          }
        }
      }
    }
    return true;
  }

  /**
   * Whether {@code query} rewrites to match nothing on a shard of an index mapped by {@code mapping} whose reader is
   * {@code reader} (null: on the mapping alone, no date range read against values).
   */
  static boolean rewritesToNothing(QueryNode query, IndexMapping mapping, IndexReader reader) {
    Predicate<QueryNode> nothing = q -> rewritesToNothing(q, mapping, reader);
    return switch (query) {
      case null -> false;
      case QueryNode.MatchNone q -> true;
      case QueryNode.ConstantScore q -> nothing.test(q.filter());
      case QueryNode.Bool q -> q.must().stream().anyMatch(nothing) || q.filter().stream().anyMatch(nothing)
          || q.mustNot().stream().anyMatch(c -> c instanceof QueryNode.MatchAll)
          || q.must().isEmpty() && q.filter().isEmpty() && !q.should().isEmpty()
          && q.should().stream().allMatch(nothing);
      case QueryNode.Boosted q -> nothing.test(q.query()); // a boost beside the field: the clause it boosts
      case QueryNode.Exists q -> unmapped(q.field(), mapping);
      case QueryNode.Terms q -> unmapped(q.field(), mapping);
      case QueryNode.Term q -> fieldUnmapped(q.field(), mapping);
      case QueryNode.Prefix q -> fieldUnmapped(q.field(), mapping);
      case QueryNode.Wildcard q -> fieldUnmapped(q.field(), mapping);
      case QueryNode.Match q -> fieldUnmapped(q.field(), mapping);
      case QueryNode.MatchPhrase q -> fieldUnmapped(q.field(), mapping);
      case QueryNode.Range q -> fieldUnmapped(q.field(), mapping)
          || !named(q.field()) && reader != null && dateRangeOutsideValues(q, mapping, reader);
      default -> false; // match_all, dis_max, ids, multi_match, query_string, simple_query_string
    };
  }

  /**
   * Whether a single-field clause's field is unmapped. A field named {@code boost} or {@code _name} (one the parser
   * reads as a field, its value an object) is not weighed, as the node's rule sets those keys aside.
   */
  private static boolean fieldUnmapped(String field, IndexMapping mapping) {
    return !named(field) && unmapped(field, mapping);
  }

  private static boolean named(String field) {
    return field.equals("boost") || field.equals("_name");
  }

  /**
   * Whether a {@code range} clause on a date field lies outside the values the shard's points hold: its lower bound
   * past their greatest or its upper bound before their least, each bound weighed alone, as the node weighs them (an
   * empty range, {@code {"gt": "2024-03-22", "lte": "2024-03-22"}}, within the shard's dates is searched: seed
   * 4073861448 #535; one whose upper bound comes before them is skipped: seed 706289052 #315).
   */
  private static boolean dateRangeOutsideValues(QueryNode.Range range, IndexMapping mapping, IndexReader reader) {
    IndexMapping.Field field = mapping.field(range.field());
    if (field == null || !field.isDate() || field.nestedPath() != null) {
      return false;
    }
    try {
      byte[] min = PointValues.getMinPackedValue(reader, field.path());
      byte[] max = PointValues.getMaxPackedValue(reader, field.path());
      if (min == null || max == null) {
        return true; // no value in the shard
      }
      byte[] lower = bound(range, mapping, field, true);
      byte[] upper = bound(range, mapping, field, false);
      return lower != null && Arrays.compareUnsigned(lower, max) > 0
          || upper != null && Arrays.compareUnsigned(upper, min) < 0;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The encoded lower ({@code lower}) or upper bound of {@code range}, built as the range query of that bound alone
   * (with the range's format and time zone); null if it has none, or it cannot be read here.
   */
  private static byte[] bound(QueryNode.Range range, IndexMapping mapping, IndexMapping.Field field, boolean lower) {
    if ((lower ? range.lower() : range.upper()) == null) {
      return null;
    }
    QueryNode.Range oneSided = new QueryNode.Range(range.field(), lower ? range.lower() : null,
        lower ? null : range.upper(), range.format(), range.timeZone(), range.boost());
    Query lucene;
    try {
      lucene = new QueryTranslator(mapping, System::currentTimeMillis).translate(oneSided);
    } catch (RuntimeException e) {
      return null; // the search itself refuses it
    }
    List<PointRangeQuery> points = new ArrayList<>();
    lucene.visit(new QueryVisitor() {
      @Override
      public void visitLeaf(Query leaf) {
        if (leaf instanceof PointRangeQuery p) {
          points.add(p);
        }
      }
    });
    if (points.size() != 1 || !points.getFirst().getField().equals(field.path())) {
      return null;
    }
    byte[] bound = lower ? points.getFirst().getLowerPoint() : points.getFirst().getUpperPoint();
    byte[] open = new byte[bound.length]; // the unbounded side: the least or greatest encoded value
    if (!lower) {
      Arrays.fill(open, (byte) 0xff);
    }
    return Arrays.equals(bound, open) ? null : bound;
  }

  private static boolean unmapped(String field, IndexMapping mapping) {
    return mapping.field(field) == null && mapping.fields().keySet().stream().noneMatch(p -> p.startsWith(field + "."));
  }
}
