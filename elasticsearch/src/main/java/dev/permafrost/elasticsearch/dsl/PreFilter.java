/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.Lease;
import dev.permafrost.elasticsearch.IndexMapping;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
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
 * @param query the request's {@code "query"}, read only by the pre-filter (null: the pre-filter does not run)
 */
record PreFilter(JsonNode query) {
  /** The pre-filter does not run (aggregations, a sort on the score, no sort). */
  static final PreFilter NONE = new PreFilter(null);

  /** The pre-filter of a request: its {@code "query"} where the node's pre-filter runs for it, else {@link #NONE}. */
  static PreFilter of(JsonNode request, boolean aggregates) {
    JsonNode query = request.get("query");
    return !aggregates && primaryFieldSort(request.get("sort")) && query != null && !query.isNull()
        ? new PreFilter(query) : NONE;
  }

  /** Whether {@code sort} (a request's {@code "sort"}) sorts first on a field or {@code _doc}, not on the score. */
  static boolean primaryFieldSort(JsonNode sort) {
    JsonNode first = sort == null ? null : sort.isArray() ? sort.get(0) : sort;
    if (first == null) {
      return false;
    }
    String field = first.isTextual() ? first.textValue() : first.isObject() && first.size() == 1
        ? first.fieldNames().next() : null;
    return field != null && !field.equals("_score");
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
  static boolean rewritesToNothing(JsonNode query, IndexMapping mapping, IndexReader reader) {
    if (query == null || !query.isObject() || query.size() != 1) {
      return false;
    }
    Map.Entry<String, JsonNode> e = query.properties().iterator().next();
    JsonNode body = e.getValue();
    Predicate<JsonNode> nothing = q -> rewritesToNothing(q, mapping, reader);
    return switch (e.getKey()) {
      case "match_none" -> true;
      case "constant_score" -> nothing.test(body.get("filter"));
      case "bool" -> anyOf(body.get("must"), nothing) || anyOf(body.get("filter"), nothing)
          || anyOf(body.get("must_not"), q -> q.isObject() && q.has("match_all"))
          || none(body.get("must")) && none(body.get("filter")) && !none(body.get("should"))
          && !anyOf(body.get("should"), nothing.negate());
      case "exists" -> body.hasNonNull("field") && unmapped(body.get("field").asText(), mapping);
      case "term", "terms", "range", "prefix", "wildcard", "match", "match_phrase" -> {
        List<String> names = new ArrayList<>();
        body.fieldNames().forEachRemaining(names::add);
        names.removeAll(List.of("boost", "_name"));
        if (names.size() != 1) {
          yield false;
        }
        String field = names.getFirst();
        yield unmapped(field, mapping) || e.getKey().equals("range") && reader != null
            && dateRangeOutsideValues(query, field, mapping.field(field), mapping, reader);
      }
      default -> false;
    };
  }

  /**
   * Whether a {@code range} clause on a date field lies outside the values the shard's points hold: its lower bound
   * past their greatest or its upper bound before their least, each bound weighed alone, as the node weighs them (an
   * empty range, {@code {"gt": "2024-03-22", "lte": "2024-03-22"}}, within the shard's dates is searched: seed
   * 4073861448 #535; one whose upper bound comes before them is skipped: seed 706289052 #315).
   */
  private static boolean dateRangeOutsideValues(JsonNode range, String name, IndexMapping.Field field,
      IndexMapping mapping, IndexReader reader) {
    if (field == null || !field.isDate() || field.nestedPath() != null || !range.path("range").path(name).isObject()) {
      return false;
    }
    try {
      byte[] min = PointValues.getMinPackedValue(reader, field.path());
      byte[] max = PointValues.getMaxPackedValue(reader, field.path());
      if (min == null || max == null) {
        return true; // no value in the shard
      }
      byte[] lower = bound(range, name, mapping, field, List.of("lt", "lte", "to", "include_upper"), true);
      byte[] upper = bound(range, name, mapping, field, List.of("gt", "gte", "from", "include_lower"), false);
      return lower != null && Arrays.compareUnsigned(lower, max) > 0
          || upper != null && Arrays.compareUnsigned(upper, min) < 0;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The encoded lower ({@code lower}) or upper bound of a {@code range} clause on {@code name}, read from the clause
   * without the other side's keys ({@code without}); null if it has none, or it cannot be read here.
   */
  private static byte[] bound(JsonNode range, String name, IndexMapping mapping, IndexMapping.Field field,
      List<String> without, boolean lower) {
    ObjectNode params = ((ObjectNode) range.get("range").get(name)).deepCopy();
    params.remove(without);
    ObjectNode oneSided = JsonNodeFactory.instance.objectNode();
    oneSided.putObject("range").set(name, params);
    Query lucene;
    try {
      lucene = new QueryDsl(mapping).toQuery(oneSided);
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

  private static boolean anyOf(JsonNode clauses, Predicate<JsonNode> test) {
    if (clauses == null) {
      return false;
    }
    for (JsonNode c : clauses.isArray() ? clauses : List.of(clauses)) {
      if (test.test(c)) {
        return true;
      }
    }
    return false;
  }

  private static boolean none(JsonNode clauses) {
    return clauses == null || clauses.isArray() && clauses.isEmpty();
  }

  private static boolean unmapped(String field, IndexMapping mapping) {
    return mapping.field(field) == null && mapping.fields().keySet().stream().noneMatch(p -> p.startsWith(field + "."));
  }
}
