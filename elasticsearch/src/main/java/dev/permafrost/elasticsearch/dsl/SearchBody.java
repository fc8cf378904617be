/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.blob.Durations;
import dev.permafrost.elasticsearch.FieldKind;
import dev.permafrost.elasticsearch.IndexMapping;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What a {@code _search} (or {@code _count}) request says, read from its URL parameters and JSON body in one place
 * and checked against the mappings of the indices it names: each refusal is a {@link DslException} naming the key,
 * parameter, clause or field at fault. No JSON below this line: {@link SearchExecutor} runs it,
 * {@link SearchRenderer} answers it.
 *
 * <p>A request naming no index ({@code indices} empty) is parsed only as far as the node parses it before it finds no
 * shard: its query (built against no mapping), {@code from}, {@code size} and {@code track_total_hits}; then
 * {@code queries} has no shard, {@code aggs} and {@code searchAfter} are null and the sort by score.
 *
 * @param indices the indices searched, resolved from the request's expression
 * @param mapping what the sort and aggregations see: the union of the indices' mappings
 * @param queries the query as parsed ({@link #query()}) and built for each index by its own mapping
 * @param aggs the aggregations (null: none asked)
 * @param sort the sort (by score when none)
 * @param from the first hit shown
 * @param size how many hits are shown
 * @param trackTotalHits -1: the total is exact; {@link #TOTAL_NOT_TRACKED}: not tracked; else the count up to which
 *     it is exact (0: none)
 * @param source which part of each hit's {@code _source} is shown
 * @param searchAfter the sort values to search after (null: from the start)
 * @param timeout how long shards may search (null: no limit)
 * @param typedKeys whether aggregation names are prefixed with their type
 * @param totalAsInt whether the total is a number ({@code rest_total_hits_as_int}) rather than an object
 * @param preFilter the node's pre-filter for the request, which shapes an empty answer where it skips every shard
 * @param shaping what each hit shows besides its {@code _source}: {@code fields}, {@code docvalue_fields},
 *     {@code highlight}
 */
record SearchBody(List<IndexShards> indices, IndexMapping mapping, IndexQueries queries, Aggregations aggs,
    SortSpec sort, int from, int size, long trackTotalHits, SourceFilter source, Object[] searchAfter,
    Duration timeout, boolean typedKeys, boolean totalAsInt, PreFilter preFilter, HitShaping shaping) {
  /** Elasticsearch's {@code index.max_result_window}: from + size may not pass it. */
  static final int MAX_RESULT_WINDOW = 10_000;
  private static final int DEFAULT_TRACK_TOTAL_HITS = 10_000;
  /** {@code track_total_hits: false}: no total at all ({@code -1} as {@code rest_total_hits_as_int}). */
  static final long TOTAL_NOT_TRACKED = -2;
  private static final Set<String> BODY_KEYS = Set.of("query", "aggs", "aggregations", "size", "from", "sort",
      "search_after", "track_total_hits", "_source", "timeout", "script_fields", "stored_fields", "docvalue_fields",
      "version", "seq_no_primary_term", "explain", "profile", "highlight", "fields", "runtime_mappings");
  private static final Set<String> IGNORED_PARAMETERS = Set.of("pretty", "human", "error_trace", "typed_keys",
      "rest_total_hits_as_int", "ignore_unavailable", "allow_no_indices", "expand_wildcards", "preference", "routing",
      "request_cache", "batched_reduce_size", "max_concurrent_shard_requests", "pre_filter_shard_size",
      "ccs_minimize_roundtrips", "search_type", "allow_partial_search_results", "ignore_throttled",
      "max_concurrent_searches", "track_scores");

  /**
   * The next page's request, for a scroll or a point in time: the same indices (their shards as mounted now), query,
   * sort and size, after the last hit's sort values ({@link SearchResult#lastSortValues()}), from 0, with no
   * aggregations (a later page has none).
   */
  SearchBody next(Object[] after) {
    if (sort.lucene() == null || after == null || after.length != sort.fields().size()) {
      throw new IllegalArgumentException("a next page follows a sort's values: one per sort field");
    }
    return new SearchBody(indices, mapping, queries, null, sort, 0, size, trackTotalHits, source, after.clone(),
        timeout, typedKeys, totalAsInt, PreFilter.NONE, shaping);
  }

  /** The request's query as parsed, before any index's mapping. */
  QueryNode query() {
    return queries.node();
  }

  /** Whether the search shows hits (else it counts and aggregates only). */
  boolean fetchesHits() {
    return from + size > 0;
  }

  /**
   * A {@code _search} request.
   *
   * @param body the JSON body (null or missing: none)
   * @param parameters the URL's parameters
   * @param resolve the indices the request's expression names, asked after the body's keys are checked
   */
  static SearchBody search(JsonNode body, Map<String, String> parameters, Supplier<List<IndexShards>> resolve) {
    checkParameters(parameters, "_search");
    ObjectNode request = object(body);
    for (String key : (Iterable<String>) request::fieldNames) {
      if (key.equals("knn")) {
        throw DslException.parsing(QueryDslParser.KNN_NOT_SUPPORTED);
      }
      if (!BODY_KEYS.contains(key)) {
        throw DslException.parsing("Unknown key [" + key + "] in the search request: not supported by Permafrost's"
            + " Elasticsearch-compatible search");
      }
    }
    refuseUnlessEmptyOrFalse(request, "script_fields", "runtime_mappings", "explain", "version", "seq_no_primary_term",
        "profile");
    List<IndexShards> chosen = resolve.get();
    IndexMapping mapping = mapping(chosen);
    QueryTranslator translator = new QueryTranslator(mapping, System::currentTimeMillis); // also aggregations' filters
    IndexQueries queries = IndexQueries.build(query(request, parameters), chosen, translator);
    int from = intOption(request, parameters, "from", 0);
    int size = intOption(request, parameters, "size", 10);
    if (from < 0 || size < 0) {
      throw DslException.illegalArgument("[from] and [size] must be at least 0, got from " + from + " and size " + size);
    }
    if ((long) from + size > MAX_RESULT_WINDOW) {
      throw DslException.everyShard("Result window is too large, from + size must be less than or equal to: ["
          + MAX_RESULT_WINDOW + "] but was [" + ((long) from + size) + "]. Page with [search_after] instead.");
    }
    long trackTotalHits = trackTotalHits(request.get("track_total_hits"), parameters.get("track_total_hits"));
    boolean typedKeys = Boolean.parseBoolean(parameters.getOrDefault("typed_keys", "false"));
    boolean totalAsInt = Boolean.parseBoolean(parameters.getOrDefault("rest_total_hits_as_int", "false"));
    if (totalAsInt) {
      // as the node: a total as a number is exact, or -1 where not tracked; a bound of its own is refused
      if (!request.has("track_total_hits") && !parameters.containsKey("track_total_hits")) {
        trackTotalHits = -1;
      } else if (trackTotalHits >= 0) {
        throw DslException.illegalArgument("[rest_total_hits_as_int] cannot be used if the tracking of total hits is"
            + " not accurate, got " + trackTotalHits);
      }
    }
    HitShaping shaping = HitShaping.parse(request, translator::translate, chosen, from + size > 0);
    if (chosen.isEmpty()) {
      // as a node answers a pattern that matches no index: no shard, no hit, no aggregation, whatever the sort or
      // aggregations name (no mapping to check them against)
      return new SearchBody(chosen, mapping, queries, null, SortSpec.BY_SCORE, from, size, trackTotalHits,
          SourceFilter.ALL, null, null, typedKeys, totalAsInt, PreFilter.NONE, shaping);
    }
    SourceFilter source = request.has("_source") ? SourceFilter.parse(request.get("_source"))
        : parameters.containsKey("_source") ? SourceFilter.parseParameter(parameters.get("_source"))
        : shaping.storedFields() ? SourceFilter.NONE // as the node: stored_fields given, the source only if asked for
        : SourceFilter.ALL;
    JsonNode aggsSpec = request.has("aggs") ? request.get("aggs") : request.get("aggregations");
    Aggregations aggs = aggsSpec == null ? null : Aggregations.parse(aggsSpec, mapping,
        filter -> translator.translate(QueryDslParser.parse(filter)));
    if (aggsSpec != null) {
      refuseConflicts(aggsSpec, mapping.conflicts());
    }
    SortSpec sort = SortSpec.parse(request.has("sort") ? request.get("sort")
        : SortSpec.parameter(parameters.get("sort")), mapping, chosen);
    Object[] after = request.has("search_after") ? sort.searchAfter(request.get("search_after"), mapping) : null;
    if (after != null && from > 0) {
      throw DslException.illegalArgument("[from] parameter must be set to 0 when [search_after] is used");
    }
    Duration timeout = timeout(request.has("timeout") ? request.get("timeout").asText() : parameters.get("timeout"));
    // the pre-filter weighs the body's sort (as it always has; a URL's sort is not weighed: not yet seen on a node)
    PreFilter preFilter = PreFilter.of(queries.node(), request.has("sort") ? sort : SortSpec.BY_SCORE,
        aggsSpec != null);
    return new SearchBody(chosen, mapping, queries, aggs, sort, from, size, trackTotalHits, source, after, timeout,
        typedKeys, totalAsInt, preFilter, shaping);
  }

  /**
   * A {@code _count} request: a query only (body or {@code q}), no hits, counted exactly.
   *
   * @param resolve the indices the request's expression names, asked after the body's keys are checked
   */
  static SearchBody count(JsonNode body, Map<String, String> parameters, Supplier<List<IndexShards>> resolve) {
    checkParameters(parameters, "_count");
    ObjectNode request = object(body);
    for (String key : (Iterable<String>) request::fieldNames) {
      if (!key.equals("query")) {
        throw DslException.parsing("request does not support [" + key + "]: a count takes a [query] only");
      }
    }
    List<IndexShards> chosen = resolve.get();
    IndexMapping mapping = mapping(chosen);
    IndexQueries queries = IndexQueries.build(query(request, parameters), chosen,
        new QueryTranslator(mapping, System::currentTimeMillis));
    return new SearchBody(chosen, mapping, queries, null, SortSpec.BY_SCORE, 0, 0, -1,
        SourceFilter.ALL, null, timeout(parameters.get("timeout")), false, false, PreFilter.NONE, HitShaping.NONE);
  }

  /** Refuses a parameter {@code api} does not take, naming it. */
  static void checkParameters(Map<String, String> parameters, String api) {
    for (String name : parameters.keySet()) {
      boolean known = IGNORED_PARAMETERS.contains(name) || switch (api) {
        case "_search" -> Set.of("size", "from", "sort", "q", "track_total_hits", "_source", "timeout").contains(name);
        case "_count" -> Set.of("q", "timeout").contains(name);
        case "_field_caps" -> Set.of("fields", "include_unmapped").contains(name);
        default -> false;
      };
      if (!known) {
        throw DslException.illegalArgument("request [" + api + "] contains unrecognized parameter: [" + name + "]");
      }
    }
  }

  /**
   * Elasticsearch's time value ({@code 500ms}, {@code 10s}, {@code 1m}: {@link Durations#parseTimeValue}), or null
   * for none; {@code -1} is none, {@code 0} the shortest.
   */
  static Duration timeout(String text) {
    if (text == null || text.isBlank()) {
      return null;
    }
    Duration d;
    try {
      d = Durations.parseTimeValue(text);
    } catch (IllegalArgumentException e) {
      d = null;
    }
    if (d != null && d.equals(Duration.ofMillis(-1))) {
      return null;
    }
    if (d == null || d.isNegative()) {
      throw DslException.parsing("failed to parse setting [timeout] with value [" + text + "] as a time value:"
          + " give a number and a unit (d, h, m, s, ms, micros, nanos)");
    }
    return d.isZero() ? Duration.ofNanos(1) : d;
  }

  private static ObjectNode object(JsonNode body) {
    if (body == null || body.isNull() || body.isMissingNode()) {
      return JsonNodeFactory.instance.objectNode();
    }
    if (!(body instanceof ObjectNode o)) {
      throw DslException.parsing("the request body must be a JSON object, got " + body);
    }
    return o;
  }

  /** What a sort and aggregations over the indices see: every field of each, those mapped two ways named. */
  private static IndexMapping mapping(List<IndexShards> chosen) {
    if (chosen.isEmpty()) {
      return IndexMapping.of(JsonNodeFactory.instance.objectNode());
    }
    return IndexMapping.union(chosen.stream().map(IndexShards::mapping).toList());
  }

  /** The request's query: its body's {@code query}, else the {@code q} parameter as a query_string, else all. */
  private static QueryNode query(ObjectNode request, Map<String, String> parameters) {
    if (request.has("query")) {
      return QueryDslParser.parse(request.get("query"));
    }
    String q = parameters.get("q");
    return q != null ? QueryDslParser.queryStringParameter(q) : new QueryNode.MatchAll(1f);
  }

  /**
   * Refuses aggregations over a field the indices map two ways, as the node does when it merges them: names the
   * aggregation.
   */
  private static void refuseConflicts(JsonNode aggs, Map<String, Set<String>> conflicts) {
    if (conflicts.isEmpty() || !aggs.isObject()) {
      return;
    }
    for (Map.Entry<String, JsonNode> agg : aggs.properties()) {
      if (!agg.getValue().isObject()) {
        continue;
      }
      for (Map.Entry<String, JsonNode> part : agg.getValue().properties()) {
        if (part.getKey().equals("aggs") || part.getKey().equals("aggregations")) {
          refuseConflicts(part.getValue(), conflicts);
        } else if (part.getValue().isObject() && part.getValue().path("field").isTextual()
            && conflicts.containsKey(part.getValue().get("field").textValue())) {
          String field = part.getValue().get("field").textValue();
          Set<String> types = conflicts.get(field);
          if (types.stream().allMatch(t -> FieldKind.of(t).numericType() != null)) {
            // a node merges numbers of two types (seen on 9.3.3: terms, avg, max over an integer and a long, a float
            // and a double); Permafrost refuses them, saying so
            throw DslException.illegalArgument("aggregation [" + agg.getKey() + "] over [" + field + "], mapped as "
                + types + " by the indices searched, is not supported by Permafrost: a node merges numbers of"
                + " different types, which Permafrost does not do");
          }
          throw DslException.reduce("Merging/Reducing the aggregations failed when computing the aggregation ["
              + agg.getKey() + "] because the field you gave in the aggregation query existed as two different types in"
              + " two different indices");
        }
      }
    }
  }

  private static void refuseUnlessEmptyOrFalse(ObjectNode request, String... keys) {
    for (String key : keys) {
      JsonNode v = request.get(key);
      if (v != null && !(v.isBoolean() && !v.booleanValue()) && !(v.isContainerNode() && v.isEmpty())) {
        throw DslException.parsing("[" + key + "] is not supported by Permafrost's Elasticsearch-compatible search");
      }
    }
  }

  private static int intOption(ObjectNode request, Map<String, String> parameters, String name, int otherwise) {
    JsonNode v = request.get(name);
    String text = v != null ? v.asText() : parameters.get(name);
    if (text == null) {
      return otherwise;
    }
    try {
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      throw DslException.parsing("[" + name + "] must be an integer, got [" + text + "]");
    }
  }

  /** -1: exact; {@link #TOTAL_NOT_TRACKED}: not tracked; else the count up to which it is exact (0: none). */
  private static long trackTotalHits(JsonNode body, String parameter) {
    String text = body != null ? body.asText() : parameter;
    if (text == null) {
      return DEFAULT_TRACK_TOTAL_HITS;
    }
    if (text.equals("true")) {
      return -1;
    }
    if (text.equals("false")) {
      return TOTAL_NOT_TRACKED;
    }
    try {
      long n = Long.parseLong(text);
      if (n < 0) {
        throw DslException.illegalArgument("[track_total_hits] must be positive, got [" + n + "]");
      }
      return n;
    } catch (NumberFormatException e) {
      throw DslException.illegalArgument("[track_total_hits] must be true, false or a number, got [" + text + "]");
    }
  }
}
