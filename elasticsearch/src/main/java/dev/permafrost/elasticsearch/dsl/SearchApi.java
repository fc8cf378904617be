/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.CollectedResponse;
import dev.permafrost.catalog.Lease;
import dev.permafrost.catalog.SearchRequest;
import dev.permafrost.catalog.SearchResponse;
import dev.permafrost.elasticsearch.DocumentId;
import dev.permafrost.elasticsearch.EngineDocuments;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.elasticsearch.MappedQueryParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.LeafCollector;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Scorable;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.SortedNumericSortField;
import org.apache.lucene.search.SortedSetSortField;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.util.BytesRef;

/**
 * The common part of Elasticsearch's search API over a {@link Catalog}'s mounted indices: {@code _search},
 * {@code _msearch}, {@code _count}, {@code _mapping} and {@code _field_caps}, with requests and responses as
 * Elasticsearch's JSON, so that its clients (the official Java client, {@code curl} scripts, Grafana's data source)
 * search mounted snapshots as they search a cluster. Queries are translated by {@link QueryDsl}, aggregations computed
 * by {@link Aggregations}, over each index's mapping; what is not supported is refused with a {@link DslException}
 * naming it (a 400), never answered differently. Thread-safe.
 *
 * <p>An index is an engine's index (its shards mounted one each) or one of Permafrost's own snapshots with a declared
 * mapping: {@link Indices} says which there are, at each request, so that indices mounted and unmounted while
 * searched are seen as they come and go. Counts are exact: every shard of a search is reduced in this process, so
 * {@code doc_count_error_upper_bound} is 0; a total is exact up to {@code track_total_hits} (10,000 by default) as
 * Elasticsearch's.
 */
public final class SearchApi {
  /**
   * One index the API searches.
   *
   * @param name its name, as requests give it
   * @param shards the names its shards are mounted under in the catalog (one, for Permafrost's own snapshots)
   * @param mapping its mapping
   */
  public record Index(String name, List<String> shards, IndexMapping mapping) {
    public Index {
      shards = List.copyOf(shards);
    }
  }

  /** The indices there are now, by name (asked at each request). */
  @FunctionalInterface
  public interface Indices {
    /** Every index, by name, in the order listings show them. */
    Map<String, Index> current();
  }

  /** Elasticsearch's {@code index.max_result_window}: from + size may not pass it. */
  public static final int MAX_RESULT_WINDOW = 10_000;
  private static final int DEFAULT_TRACK_TOTAL_HITS = 10_000;
  /** {@code track_total_hits: false}: no total at all ({@code -1} as {@code rest_total_hits_as_int}). */
  private static final long TOTAL_NOT_TRACKED = -2;
  private static final Set<String> BODY_KEYS = Set.of("query", "aggs", "aggregations", "size", "from", "sort",
      "search_after", "track_total_hits", "_source", "timeout", "script_fields", "stored_fields", "docvalue_fields",
      "version", "seq_no_primary_term", "explain", "profile", "highlight");
  private static final Set<String> IGNORED_PARAMETERS = Set.of("pretty", "human", "error_trace", "typed_keys",
      "rest_total_hits_as_int", "ignore_unavailable", "allow_no_indices", "expand_wildcards", "preference", "routing",
      "request_cache", "batched_reduce_size", "max_concurrent_shard_requests", "pre_filter_shard_size",
      "ccs_minimize_roundtrips", "search_type", "allow_partial_search_results", "ignore_throttled",
      "max_concurrent_searches", "track_scores");
  private static final Pattern TIME_VALUE = Pattern.compile("(\\d+)(nanos|micros|ms|s|m|h|d)");

  private final Catalog catalog;
  private final Indices indices;
  private final ObjectMapper json = new ObjectMapper();
  private final JsonNodeFactory nodes = JsonNodeFactory.instance;

  /** The API over {@code catalog}'s indices as {@code indices} lists them. */
  public SearchApi(Catalog catalog, Indices indices) {
    this.catalog = catalog;
    this.indices = indices;
  }

  /**
   * {@code GET|POST /{index}/_search}.
   *
   * @param expression the index expression ({@code logs-*}, {@code a,b}, {@code _all}; null for all)
   * @param body the request body, or null
   * @param parameters the URL parameters ({@code size}, {@code from}, {@code sort}, {@code q}, {@code typed_keys},
   *     {@code track_total_hits}, {@code _source}, {@code timeout}, {@code ignore_unavailable},
   *     {@code allow_no_indices}, {@code rest_total_hits_as_int}, ...)
   * @throws DslException for a request refused, with its status and Elasticsearch's error type
   */
  public ObjectNode search(String expression, JsonNode body, Map<String, String> parameters) throws IOException {
    long start = System.nanoTime();
    checkParameters(parameters, "_search");
    ObjectNode request = body == null || body.isNull() || body.isMissingNode() ? nodes.objectNode() : object(body);
    for (String key : (Iterable<String>) request::fieldNames) {
      if (!BODY_KEYS.contains(key)) {
        throw DslException.parsing("Unknown key [" + key + "] in the search request: not supported by Permafrost's"
            + " Elasticsearch-compatible search");
      }
    }
    refuseUnlessEmptyOrFalse(request, "script_fields", "stored_fields", "docvalue_fields", "highlight", "explain",
        "version", "seq_no_primary_term", "profile");
    List<Index> chosen = resolve(expression, parameters);
    IndexMapping mapping = mapping(chosen);
    QueryDsl dsl = new QueryDsl(mapping);
    IndexQueries queries = queries(chosen, request, parameters, dsl);
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
    if (Boolean.parseBoolean(parameters.getOrDefault("rest_total_hits_as_int", "false"))) {
      // as the node: a total as a number is exact, or -1 where not tracked; a bound of its own is refused
      if (!request.has("track_total_hits") && !parameters.containsKey("track_total_hits")) {
        trackTotalHits = -1;
      } else if (trackTotalHits >= 0) {
        throw DslException.illegalArgument("[rest_total_hits_as_int] cannot be used if the tracking of total hits is"
            + " not accurate, got " + trackTotalHits);
      }
    }
    if (chosen.isEmpty()) {
      // as a node answers a pattern that matches no index: no shard, no hit, no aggregation, whatever the sort or
      // aggregations name (no mapping to check them against)
      return nothingSearched(start, trackTotalHits, parameters);
    }
    SourceFilter source = request.has("_source") ? SourceFilter.parse(request.get("_source"))
        : SourceFilter.parseParameter(parameters.get("_source"));
    JsonNode aggsSpec = request.has("aggs") ? request.get("aggs") : request.get("aggregations");
    Aggregations aggs = aggsSpec == null ? null : Aggregations.parse(aggsSpec, mapping, dsl::toQuery);
    if (aggsSpec != null) {
      refuseConflicts(aggsSpec, mapping.conflicts());
    }
    SortSpec sort = sort(request.has("sort") ? request.get("sort") : sortParameter(parameters.get("sort")), mapping,
        chosen);
    Object[] after = request.has("search_after") ? searchAfter(request.get("search_after"), sort, mapping) : null;
    if (after != null && from > 0) {
      throw DslException.illegalArgument("[from] parameter must be set to 0 when [search_after] is used");
    }
    Duration timeout = timeout(request.has("timeout") ? request.get("timeout").asText() : parameters.get("timeout"));
    boolean typedKeys = Boolean.parseBoolean(parameters.getOrDefault("typed_keys", "false"));

    Map<String, Index> byShard = new HashMap<>();
    int shardCount = 0;
    for (Index index : chosen) {
      for (String shard : index.shards()) {
        byShard.put(shard, index);
        shardCount++;
      }
    }
    List<String> shards = queries.shards();
    ObjectNode response = nodes.objectNode();
    TotalHits total = new TotalHits(0, TotalHits.Relation.EQUAL_TO);
    List<SearchResponse.Hit> hits = List.of();
    Aggregations.Result aggregated = null;
    Shards shardCounts = new Shards(shardCount);
    shardCounts.add(0, queries.failed(), 0);
    boolean timedOut = false;
    if (!shards.isEmpty()) {
      Query query = queries.any();
      if (from + size > 0) {
        SearchRequest.Builder b = SearchRequest.builder(query).queryPerIndex(queries::query)
            .indices(shards.toArray(String[]::new)).size(from + size)
            .fields(EngineDocuments.ID, EngineDocuments.SOURCE).allowPartialResults(true)
            .exactTotalHits(trackTotalHits > 0 || trackTotalHits == -1).timeout(timeout)
            .similarity(ClassicBm25Similarity.INSTANCE);
        if (sort.lucene() != null) {
          b.sort(sort.lucene());
        }
        if (after != null) {
          b.searchAfter(after);
        }
        SearchResponse found = catalog.search(b.build());
        total = found.totalHits();
        hits = found.hits();
        shardCounts.add(found.skipped().size(), found.failed(), found.timedOutIndices().size());
        timedOut |= found.timedOut();
      }
      if (aggs != null || from + size == 0) {
        CollectorManager<?, Aggregations.Result> manager = aggs != null ? aggs.collectorManager()
            : Aggregations.parse(nodes.objectNode(), mapping, dsl::toQuery).collectorManager();
        CollectedResponse<Aggregations.Result> collected = catalog.search(SearchRequest.builder(query)
            .queryPerIndex(queries::query).indices(shards.toArray(String[]::new)).allowPartialResults(true)
            .timeout(timeout).build(), manager);
        aggregated = collected.result();
        if (from + size == 0) {
          total = new TotalHits(aggregated.docCount(), collected.timedOut() || !collected.failed().isEmpty()
              ? TotalHits.Relation.GREATER_THAN_OR_EQUAL_TO : TotalHits.Relation.EQUAL_TO);
          shardCounts.add(collected.skipped().size(), collected.failed(), collected.timedOutIndices().size());
        }
        timedOut |= collected.timedOut();
      }
    }
    response.put("took", (System.nanoTime() - start) / 1_000_000);
    response.put("timed_out", timedOut);
    response.set("_shards", shardCounts.toJson());
    ObjectNode hitsNode = response.putObject("hits");
    if (trackTotalHits != TOTAL_NOT_TRACKED) {
      long value = total.value();
      String relation = total.relation() == TotalHits.Relation.EQUAL_TO ? "eq" : "gte";
      // counted up to the bound: a search for hits counts past it, one for aggregations alone stops at it (as
      // Elasticsearch's collectors do), so there reaching it is already a lower bound
      // tracked up to 0, no hit is counted: the node's total is {0, gte} whatever matches
      // (a search for hits that finds none has counted them all: {0, eq}, as Lucene's collector on the node)
      if (trackTotalHits == 0 && (from + size == 0 || !hits.isEmpty()) || trackTotalHits > 0
          && (from + size == 0 ? value >= trackTotalHits : value > trackTotalHits)) {
        value = trackTotalHits;
        relation = "gte";
      }
      if (Boolean.parseBoolean(parameters.getOrDefault("rest_total_hits_as_int", "false"))) {
        hitsNode.put("total", value);
      } else {
        ObjectNode t = hitsNode.putObject("total");
        t.put("value", value);
        t.put("relation", relation);
      }
    } else if (Boolean.parseBoolean(parameters.getOrDefault("rest_total_hits_as_int", "false"))) {
      hitsNode.put("total", -1); // as the node prints a total it did not track
    }
    ArrayNode hitArray = nodes.arrayNode();
    float maxScore = Float.NaN;
    for (int i = 0; i < hits.size(); i++) {
      SearchResponse.Hit hit = hits.get(i);
      if (i >= from) {
        hitArray.add(hit(hit, byShard.get(hit.index()), source, sort));
      }
      if (!Float.isNaN(hit.score())) { // the best of all, those before from too, as the node's
        maxScore = Float.isNaN(maxScore) ? hit.score() : Math.max(maxScore, hit.score());
      }
    }
    if (hits.isEmpty() && aggsSpec == null && primaryFieldSortWithoutMissing(request.get("sort"))
        && QueryDsl.rewritesToNothing(request.get("query"), mapping)) {
      // as the node answers when its pre-filter, run for a sort on a field, skipped every shard
      hitsNode.put("max_score", 0.0f);
    } else if (Float.isNaN(maxScore) || sort.byField()) {
      hitsNode.putNull("max_score");
    } else {
      hitsNode.put("max_score", maxScore);
    }
    hitsNode.set("hits", hitArray);
    if (aggs != null && aggregated != null) { // no index: no aggregations at all, as the node answers
      response.set("aggregations", aggregated.toJson(typedKeys));
    }
    return response;
  }

  /** The answer to a search of no index: 0 shards, 0 hits, {@code max_score} 0 as the node gives it. */
  private ObjectNode nothingSearched(long start, long trackTotalHits, Map<String, String> parameters) {
    ObjectNode response = nodes.objectNode();
    response.put("took", (System.nanoTime() - start) / 1_000_000);
    response.put("timed_out", false);
    response.set("_shards", new Shards(0).toJson());
    ObjectNode hits = response.putObject("hits");
    boolean asInt = Boolean.parseBoolean(parameters.getOrDefault("rest_total_hits_as_int", "false"));
    if (trackTotalHits != TOTAL_NOT_TRACKED) {
      if (asInt) {
        hits.put("total", 0);
      } else {
        hits.putObject("total").put("value", 0).put("relation", "eq");
      }
    } else if (asInt) {
      hits.put("total", -1);
    }
    hits.put("max_score", 0.0f);
    hits.putArray("hits");
    return response;
  }

  /** {@code GET|POST /{index}/_count}: {@code {"count": n, "_shards": ...}}. */
  public ObjectNode count(String expression, JsonNode body, Map<String, String> parameters) throws IOException {
    checkParameters(parameters, "_count");
    ObjectNode request = body == null || body.isNull() || body.isMissingNode() ? nodes.objectNode() : object(body);
    for (String key : (Iterable<String>) request::fieldNames) {
      if (!key.equals("query")) {
        throw DslException.parsing("request does not support [" + key + "]: a count takes a [query] only");
      }
    }
    List<Index> chosen = resolve(expression, parameters);
    IndexQueries queries = queries(chosen, request, parameters, new QueryDsl(mapping(chosen)));
    List<String> shards = queries == null ? List.of() : queries.shards();
    Shards shardCounts = new Shards(chosen.stream().mapToInt(i -> i.shards().size()).sum());
    if (queries != null) {
      shardCounts.add(0, queries.failed(), 0);
    }
    long count = 0;
    if (!shards.isEmpty()) {
      CollectedResponse<Long> counted = catalog.search(SearchRequest.builder(queries.any())
          .queryPerIndex(queries::query).indices(shards.toArray(String[]::new)).allowPartialResults(true)
          .timeout(timeout(parameters.get("timeout"))).build(), new Count());
      count = counted.result();
      shardCounts.add(counted.skipped().size(), counted.failed(), counted.timedOutIndices().size());
    }
    ObjectNode response = nodes.objectNode();
    response.put("count", count);
    response.set("_shards", shardCounts.toJson());
    return response;
  }

  /**
   * {@code POST /_msearch} and {@code /{index}/_msearch}: each header and body line pair searched as
   * {@link #search}, answered in order; a failing search answers with its error and status, and the others still
   * run.
   */
  public ObjectNode msearch(String expression, byte[] ndjson, Map<String, String> parameters) throws IOException {
    long start = System.nanoTime();
    checkParameters(parameters, "_msearch");
    List<String> lines = new ArrayList<>();
    for (String line : new String(ndjson, StandardCharsets.UTF_8).split("\n")) {
      if (!line.isBlank()) {
        lines.add(line);
      }
    }
    if (lines.size() % 2 != 0) {
      throw DslException.illegalArgument("[_msearch] needs a header line and a body line per search; the last header"
          + " has no body");
    }
    ArrayNode responses = nodes.arrayNode();
    for (int i = 0; i < lines.size(); i += 2) {
      ObjectNode answer;
      try {
        JsonNode header = parseJson(lines.get(i), "header line " + (i + 1));
        JsonNode body = parseJson(lines.get(i + 1), "body line " + (i + 2));
        Map<String, String> params = new HashMap<>();
        params.put("typed_keys", parameters.getOrDefault("typed_keys", "false"));
        if (parameters.containsKey("rest_total_hits_as_int")) {
          params.put("rest_total_hits_as_int", parameters.get("rest_total_hits_as_int"));
        }
        String indices = expression;
        for (Map.Entry<String, JsonNode> h : header.properties()) {
          switch (h.getKey()) {
            case "index", "indices" -> indices = h.getValue().isArray() ? join(h.getValue()) : h.getValue().asText();
            case "ignore_unavailable", "allow_no_indices" -> params.put(h.getKey(), h.getValue().asText());
            case "search_type", "preference", "routing", "request_cache", "expand_wildcards",
                "allow_partial_search_results", "ccs_minimize_roundtrips", "max_concurrent_shard_requests" -> { }
            default -> throw DslException.parsing("[_msearch] header does not support [" + h.getKey() + "]");
          }
        }
        answer = search(indices, body, params);
        answer.put("status", 200);
      } catch (DslException e) {
        answer = error(e);
      } catch (RuntimeException e) { // one search's failure is its own answer, never every search's
        answer = error(500, "exception", String.valueOf(e));
      }
      responses.add(answer);
    }
    ObjectNode response = nodes.objectNode();
    response.put("took", (System.nanoTime() - start) / 1_000_000);
    response.set("responses", responses);
    return response;
  }

  /** {@code GET /{index}/_mapping}: each index's mapping as its snapshot (or declaration) gave it. */
  public ObjectNode mapping(String expression, Map<String, String> parameters) {
    checkParameters(parameters, "_mapping");
    ObjectNode response = nodes.objectNode();
    for (Index index : resolve(expression, parameters)) {
      response.putObject(index.name()).set("mappings", index.mapping().json());
    }
    return response;
  }

  /**
   * {@code GET|POST /{index}/_field_caps?fields=...}: each mapped field that matches with its type, and whether it is
   * searchable and aggregatable, and every object holding one (as the node answers: an object is listed as the parent
   * of a field that matches, never for matching itself, so {@code fields=user.*} lists {@code user} and
   * {@code fields=user} nothing); a field mapped with different types in different indices lists each type with its
   * indices.
   */
  public ObjectNode fieldCaps(String expression, String fields, Map<String, String> parameters) {
    checkParameters(parameters, "_field_caps");
    List<Index> chosen = resolve(expression, parameters);
    List<Pattern> wanted = new ArrayList<>();
    for (String f : (fields == null || fields.isBlank() ? "*" : fields).split(",")) {
      wanted.add(IndexExpression.glob(f.trim()));
    }
    // field -> type -> indices holding it with that type, and whether searchable / aggregatable
    Map<String, Map<String, Capability>> caps = new TreeMap<>();
    for (Index index : chosen) {
      for (IndexMapping.Field f : index.mapping().fields().values()) {
        if (wanted.stream().noneMatch(p -> p.matcher(f.path()).matches())) {
          continue;
        }
        String[] parts = f.path().split("\\.");
        String parent = "";
        for (int i = 0; i < parts.length - 1; i++) {
          parent = parent.isEmpty() ? parts[i] : parent + "." + parts[i];
          if (index.mapping().field(parent) == null) {
            String type = f.nestedPath() != null && f.nestedPath().equals(parent) ? "nested" : "object";
            caps.computeIfAbsent(parent, k -> new LinkedHashMap<>()).computeIfAbsent(type,
                k -> new Capability(false, false)).indices.add(index.name());
          }
        }
        boolean aggregatable = f.docValues() && !"text".equals(f.type()) && !"match_only_text".equals(f.type());
        caps.computeIfAbsent(f.path(), k -> new LinkedHashMap<>()).computeIfAbsent(f.type(),
            k -> new Capability(f.indexed(), aggregatable)).indices.add(index.name());
      }
    }
    ObjectNode response = nodes.objectNode();
    ArrayNode names = response.putArray("indices");
    chosen.stream().map(Index::name).sorted().forEach(names::add);
    ObjectNode out = response.putObject("fields");
    caps.forEach((field, byType) -> {
      ObjectNode f = out.putObject(field);
      byType.forEach((type, cap) -> {
        ObjectNode t = f.putObject(type);
        t.put("type", type);
        t.put("metadata_field", false);
        t.put("searchable", cap.searchable);
        t.put("aggregatable", cap.aggregatable);
        if (byType.size() > 1) {
          ArrayNode in = t.putArray("indices");
          cap.indices.forEach(in::add);
        }
      });
    });
    return response;
  }

  /** Whether an index's field of one type is searchable and aggregatable, and the indices it is in. */
  private static final class Capability {
    final boolean searchable;
    final boolean aggregatable;
    final Set<String> indices = new LinkedHashSet<>();

    Capability(boolean searchable, boolean aggregatable) {
      this.searchable = searchable;
      this.aggregatable = aggregatable;
    }
  }

  /**
   * Elasticsearch's error body for a refused request: {@code {"error": {"root_cause": [...], "type": ..., "reason":
   * ...}, "status": n}}.
   */
  public static ObjectNode error(DslException e) {
    if (e.maxBuckets() >= 0) { // the node's final reduce failed: no shard failed, the cause says why
      JsonNodeFactory nodes = JsonNodeFactory.instance;
      ObjectNode error = nodes.objectNode();
      error.putArray("root_cause");
      error.put("type", e.type());
      error.put("reason", "");
      error.put("phase", "fetch");
      error.put("grouped", true);
      error.putArray("failed_shards");
      ObjectNode cause = error.putObject("caused_by");
      cause.put("type", e.rootCauseType());
      cause.put("reason", e.getMessage());
      cause.put("max_buckets", e.maxBuckets());
      ObjectNode body = nodes.objectNode();
      body.set("error", error);
      body.put("status", e.status());
      return body;
    }
    return error(e.status(), e.type(), e.rootCauseType(), e.getMessage());
  }

  /** Elasticsearch's error body with this status, type and reason. */
  public static ObjectNode error(int status, String type, String reason) {
    return error(status, type, type, reason);
  }

  private static ObjectNode error(int status, String type, String rootCauseType, String reason) {
    JsonNodeFactory nodes = JsonNodeFactory.instance;
    if (rootCauseType == null) { // failed while merging the shards' answers: no shard failed
      ObjectNode error = nodes.objectNode();
      error.putArray("root_cause");
      error.put("type", type);
      error.put("reason", "");
      error.put("phase", "fetch");
      error.put("grouped", true);
      error.putArray("failed_shards");
      error.putObject("caused_by").put("type", "illegal_argument_exception").put("reason", reason);
      ObjectNode body = nodes.objectNode();
      body.set("error", error);
      body.put("status", status);
      return body;
    }
    ObjectNode cause = nodes.objectNode();
    cause.put("type", rootCauseType);
    cause.put("reason", reason);
    ObjectNode error = nodes.objectNode();
    error.putArray("root_cause").add(cause);
    error.put("type", type);
    boolean everyShard = type.equals("search_phase_execution_exception") && !rootCauseType.equals(type);
    error.put("reason", everyShard ? "all shards failed" : reason); // the shards' reason is the root cause's
    if (everyShard) {
      error.put("phase", "query");
      error.put("grouped", true);
      error.putObject("caused_by").put("type", rootCauseType).put("reason", reason);
    }
    ObjectNode body = nodes.objectNode();
    body.set("error", error);
    body.put("status", status);
    return body;
  }

  /**
   * The body of {@code GET /}: a node's name, cluster and version as Elasticsearch gives them, with
   * {@code version.number} the version claimed (its clients and tools read it to choose the API they speak).
   */
  public static ObjectNode info(String nodeName, String clusterName, String versionClaimed, String luceneVersion) {
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    body.put("name", nodeName);
    body.put("cluster_name", clusterName);
    body.put("cluster_uuid", "_na_");
    ObjectNode version = body.putObject("version");
    version.put("number", versionClaimed);
    version.put("build_flavor", "default");
    version.put("build_type", "permafrost");
    version.put("build_hash", "permafrost");
    version.put("build_date", "2026-01-01T00:00:00.000Z");
    version.put("build_snapshot", false);
    version.put("lucene_version", luceneVersion);
    version.put("minimum_wire_compatibility_version", "8.19.0");
    version.put("minimum_index_compatibility_version", "8.0.0");
    body.put("tagline", "You Know, for Search");
    return body;
  }

  private List<Index> resolve(String expression, Map<String, String> parameters) {
    return IndexExpression.resolve(expression, indices.current(),
        Boolean.parseBoolean(parameters.getOrDefault("ignore_unavailable", "false")),
        Boolean.parseBoolean(parameters.getOrDefault("allow_no_indices", "true")));
  }

  /** What a sort and aggregations over the indices see: every field of each, those mapped two ways named. */
  private static IndexMapping mapping(List<Index> chosen) {
    if (chosen.isEmpty()) {
      return IndexMapping.of(JsonNodeFactory.instance.objectNode());
    }
    return IndexMapping.union(chosen.stream().map(Index::mapping).toList());
  }

  /**
   * The request's query for each index by the index's own mapping ({@link IndexQueries}); with no index, checked
   * against no mapping (as the node still parses it) and null.
   */
  private static IndexQueries queries(List<Index> chosen, ObjectNode request, Map<String, String> parameters,
      QueryDsl unionDsl) {
    if (chosen.isEmpty()) {
      query(request, parameters, unionDsl);
      return null;
    }
    if (chosen.size() == 1) {
      return IndexQueries.translate(chosen, m -> query(request, parameters, unionDsl)); // the index's own mapping
    }
    return IndexQueries.translate(chosen, m -> query(request, parameters, new QueryDsl(m)));
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
          throw DslException.reduce("Merging/Reducing the aggregations failed when computing the aggregation ["
              + agg.getKey() + "] because the field you gave in the aggregation query existed as two different types in"
              + " two different indices");
        }
      }
    }
  }

  /** The request's query: its body's {@code query}, else the {@code q} parameter as a query_string, else all. */
  private static Query query(ObjectNode request, Map<String, String> parameters, QueryDsl dsl) {
    if (request.has("query")) {
      return dsl.toQuery(request.get("query"));
    }
    String q = parameters.get("q");
    if (q != null) {
      ObjectNode qs = JsonNodeFactory.instance.objectNode();
      qs.putObject("query_string").put("query", q);
      return dsl.toQuery(qs);
    }
    return new MatchAllDocsQuery();
  }

  private static void checkParameters(Map<String, String> parameters, String api) {
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

  /** Elasticsearch's time value ({@code 500ms}, {@code 10s}, {@code 1m}), or null for none; {@code -1} is none. */
  static Duration timeout(String text) {
    if (text == null || text.isBlank() || text.equals("-1")) {
      return null;
    }
    Matcher m = TIME_VALUE.matcher(text.trim());
    if (!m.matches()) {
      throw DslException.parsing("failed to parse setting [timeout] with value [" + text + "] as a time value:"
          + " give a number and a unit (d, h, m, s, ms, micros, nanos)");
    }
    long n = Long.parseLong(m.group(1));
    Duration d = switch (m.group(2)) {
      case "nanos" -> Duration.ofNanos(n);
      case "micros" -> Duration.ofNanos(n * 1000);
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      default -> Duration.ofDays(n);
    };
    return d.isZero() ? Duration.ofNanos(1) : d;
  }

  /** The URL's {@code sort=field:order,...} as the body's form. */
  private static JsonNode sortParameter(String sort) {
    if (sort == null) {
      return null;
    }
    ArrayNode specs = JsonNodeFactory.instance.arrayNode();
    for (String part : sort.split(",")) {
      int colon = part.lastIndexOf(':');
      if (colon > 0) {
        specs.addObject().put(part.substring(0, colon), part.substring(colon + 1));
      } else {
        specs.add(part);
      }
    }
    return specs;
  }

  /**
   * A search's sort: the Lucene sort (null for by score), and per sort field what it is, to show sort values and
   * read {@code search_after} as Elasticsearch does.
   */
  record SortSpec(Sort lucene, List<SortField> fields) {
    boolean byField() {
      return lucene != null && fields.stream().anyMatch(f -> f.getType() != SortField.Type.SCORE);
    }

    /** Where the score is among the sort values, or -1 if the sort has none (or the search is by score). */
    int scoreAt() {
      for (int i = 0; lucene != null && i < fields.size(); i++) {
        if (fields.get(i).getType() == SortField.Type.SCORE) {
          return i;
        }
      }
      return -1;
    }
  }

  private static SortSpec sort(JsonNode spec, IndexMapping mapping, List<Index> chosen) {
    if (spec == null || spec.isNull()) {
      return new SortSpec(null, List.of());
    }
    MappedQueryParser parser = new MappedQueryParser(mapping);
    List<SortField> fields = new ArrayList<>();
    for (JsonNode entry : spec.isArray() ? spec : List.of(spec)) {
      String field;
      String order = null;
      String missing = null;
      if (entry.isTextual()) {
        field = entry.textValue();
      } else if (entry.isObject() && entry.size() == 1) {
        Map.Entry<String, JsonNode> e = entry.properties().iterator().next();
        field = e.getKey();
        JsonNode options = e.getValue();
        if (options.isTextual()) {
          order = options.textValue();
        } else if (options.isObject()) {
          for (Map.Entry<String, JsonNode> o : options.properties()) {
            switch (o.getKey()) {
              case "order" -> order = o.getValue().asText();
              case "missing" -> missing = o.getValue().asText();
              case "unmapped_type", "numeric_type", "format" -> { }
              default -> throw DslException.parsing("[sort] option [" + o.getKey() + "] of [" + field + "] is not"
                  + " supported (supported: order, missing, unmapped_type)");
            }
          }
        } else {
          throw DslException.parsing("[sort] of [" + field + "] must be an order or an object, got " + options);
        }
      } else {
        throw DslException.parsing("[sort] entries must be a field name or {field: order}, got " + entry);
      }
      if (order != null && !order.equals("asc") && !order.equals("desc")) {
        throw DslException.parsing("[sort] order of [" + field + "] must be asc or desc, got [" + order + "]");
      }
      if (field.equals("_score")) {
        fields.add(new SortField(null, SortField.Type.SCORE, "asc".equals(order)));
      } else if (field.equals("_doc")) {
        fields.add(new SortField(null, SortField.Type.DOC, "desc".equals(order)));
      } else if (mapping.field(field) == null) {
        if (entry.isObject() && entry.elements().next().has("unmapped_type")) {
          continue; // every document lacks it: it does not order them
        }
        throw new DslException(400, "query_shard_exception", "No mapping found for [" + field + "] in order to sort on");
      } else {
        boolean descending = "desc".equals(order);
        SortField f;
        if (mapping.conflicts().containsKey(field)) {
          refuseIncompatibleSorts(field, descending, chosen);
        }
        try {
          f = parser.sortField(field, descending);
        } catch (IllegalArgumentException e) {
          throw DslException.illegalArgument(e.getMessage());
        }
        if ("_first".equals(missing)) {
          first(f, descending);
        } else if (missing != null && !missing.equals("_last")) {
          SortMissing.set(f, mapping.field(field), missing);
        }
        fields.add(f);
      }
    }
    boolean byScoreAlone = fields.size() == 1 && fields.get(0).getType() == SortField.Type.SCORE
        && !fields.get(0).getReverse(); // as the node: the search by score, its max_score and no sort values
    return fields.isEmpty() || byScoreAlone ? new SortSpec(null, List.of())
        : new SortSpec(new Sort(fields.toArray(SortField[]::new)), List.copyOf(fields));
  }

  /**
   * Whether a request's sort starts with a field (not {@code _score} or {@code _doc}) given no {@code missing} value
   * ({@code _first} and {@code _last} are none).
   */
  private static boolean primaryFieldSortWithoutMissing(JsonNode sort) {
    JsonNode first = sort == null ? null : sort.isArray() ? sort.get(0) : sort;
    if (first == null) {
      return false;
    }
    String field = first.isTextual() ? first.textValue() : first.isObject() && first.size() == 1
        ? first.fieldNames().next() : null;
    JsonNode options = first.isObject() && field != null ? first.get(field) : null;
    return field != null && !field.equals("_score") && !field.equals("_doc")
        && (options == null || !options.isObject() || !options.has("missing")
        || List.of("_first", "_last").contains(options.get("missing").asText()));
  }

  /**
   * Refuses a sort on {@code field} where indices map it so that they sort it as different types (a keyword here, a
   * long there), as the node does when it merges their hits.
   */
  private static void refuseIncompatibleSorts(String field, boolean descending, List<Index> chosen) {
    Set<String> types = new LinkedHashSet<>();
    for (Index index : chosen) {
      if (index.mapping().field(field) != null) {
        SortField f = new MappedQueryParser(index.mapping()).sortField(field, descending);
        types.add(f instanceof SortedNumericSortField n ? n.getNumericType().name()
            : f instanceof SortedSetSortField ? "STRING" : f.getType().name());
      }
    }
    if (types.size() > 1) {
      List<String> list = List.copyOf(types);
      throw DslException.reduce("Can't sort on field [" + field + "]; the field has incompatible sort types: ["
          + list.get(0) + "] and [" + list.get(1) + "] across shards!");
    }
  }

  /** Documents without a value first rather than last. */
  private static void first(SortField f, boolean descending) {
    if (f instanceof SortedSetSortField) {
      f.setMissingValue(descending ? SortField.STRING_LAST : SortField.STRING_FIRST);
    } else if (f instanceof SortedNumericSortField n) {
      switch (n.getNumericType()) {
        case LONG -> f.setMissingValue(descending ? Long.MAX_VALUE : Long.MIN_VALUE);
        case INT -> f.setMissingValue(descending ? Integer.MAX_VALUE : Integer.MIN_VALUE);
        case DOUBLE -> f.setMissingValue(descending ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY);
        case FLOAT -> f.setMissingValue(descending ? Float.POSITIVE_INFINITY : Float.NEGATIVE_INFINITY);
        default -> { }
      }
    }
  }

  /** {@code search_after}'s values as the sort's fields hold them. */
  private static Object[] searchAfter(JsonNode values, SortSpec sort, IndexMapping mapping) {
    if (sort.lucene() == null) {
      throw DslException.illegalArgument("[search_after] needs a [sort]");
    }
    if (!values.isArray() || values.size() != sort.fields().size()) {
      throw DslException.illegalArgument("[search_after] has " + (values.isArray() ? values.size() : 1) + " value(s)"
          + " but the sort has " + sort.fields().size() + " field(s): give one value per sort field");
    }
    Object[] after = new Object[values.size()];
    for (int i = 0; i < after.length; i++) {
      JsonNode v = values.get(i);
      SortField f = sort.fields().get(i);
      SortField.Type type = f instanceof SortedNumericSortField n ? n.getNumericType()
          : f instanceof SortedSetSortField ? SortField.Type.STRING : f.getType();
      IndexMapping.Field field = f.getField() == null ? null : mapping.field(f.getField());
      if (v.isNull() && type != SortField.Type.STRING) {
        throw DslException.illegalArgument("[search_after] value of [" + f.getField() + "] is null: only a keyword"
            + " sort's value may be (a document without one)");
      }
      try {
        after[i] = switch (type) {
          case STRING -> v.isNull() ? null : new BytesRef(v.asText()); // null: no value, as the node prints it
          case LONG -> v.isNumber() ? v.longValue() : field != null && field.isDate() && !isInteger(v.asText())
              ? date(field, v.asText()) : Long.parseLong(v.asText());
          case INT -> v.isNumber() ? v.intValue() : Integer.parseInt(v.asText());
          case DOUBLE -> v.isNumber() ? v.doubleValue() : Double.parseDouble(v.asText());
          case FLOAT, SCORE -> v.isNumber() ? v.floatValue() : Float.parseFloat(v.asText());
          case DOC -> v.isNumber() ? v.intValue() : Integer.parseInt(v.asText());
          default -> throw DslException.illegalArgument("[search_after] cannot follow a sort on " + f);
        };
      } catch (NumberFormatException e) {
        throw DslException.illegalArgument("[search_after] value [" + v.asText() + "] does not fit the sort on ["
            + f.getField() + "]");
      }
    }
    return after;
  }

  private static boolean isInteger(String text) {
    return text.matches("-?\\d+");
  }

  /**
   * A date in {@code search_after} as the sort holds it: read as the query DSL reads a date ({@link QueryDsl#dateBounds}),
   * in nanoseconds for a {@code date_nanos} field.
   */
  private static long date(IndexMapping.Field field, String text) {
    long millis = QueryDsl.dateBounds(System::currentTimeMillis).epochMillis(field, text, false);
    return "date_nanos".equals(field.type()) ? Math.multiplyExact(millis, 1_000_000L) : millis;
  }

  /** One hit as Elasticsearch shows it. */
  private ObjectNode hit(SearchResponse.Hit hit, Index index, SourceFilter filter, SortSpec sort) throws IOException {
    ObjectNode node = nodes.objectNode();
    node.put("_index", index.name());
    Document document = hit.document();
    String id = document == null ? null : EngineDocuments.id(document);
    node.put("_id", id != null ? id : hit.index() + "#" + hit.doc()); // Permafrost's own snapshots keep no _id
    // sorted on fields, a hit's score is the node's where the sort has it (then it was computed), else null
    float score = sort.scoreAt() >= 0 && hit.sortValues() != null ? (Float) hit.sortValues()[sort.scoreAt()]
        : !sort.byField() ? hit.score() : Float.NaN;
    if (Float.isNaN(score)) {
      node.putNull("_score");
    } else {
      node.put("_score", score);
    }
    if (filter.fetches()) {
      ObjectNode source = source(hit, document, index);
      if (source != null) {
        node.set("_source", filter.apply(source));
      }
    }
    if (sort.lucene() != null && hit.sortValues() != null) {
      ArrayNode values = node.putArray("sort");
      for (Object v : hit.sortValues()) {
        sortValue(values, v);
      }
    }
    return node;
  }

  private ObjectNode source(SearchResponse.Hit hit, Document document, Index index) throws IOException {
    IndexableField stored = document == null ? null : document.getField(EngineDocuments.SOURCE);
    String text = null;
    if (stored != null && stored.binaryValue() != null) {
      text = EngineDocuments.source(stored.binaryValue());
    } else if (stored != null) {
      text = stored.stringValue();
    }
    if (text == null) {
      // no _source stored (Elasticsearch's synthetic source): rebuilt from the document's doc values
      try (Lease lease = catalog.acquire(hit.index())) {
        text = EngineDocuments.sourceFromDocValues(lease.reader(), hit.doc(), index.mapping()).json();
      }
    }
    return object(parseJson(text, "the _source of " + hit.index() + " document " + hit.doc()));
  }

  private static void sortValue(ArrayNode values, Object v) {
    switch (v) {
      case null -> values.addNull();
      case BytesRef b -> values.add(b.utf8ToString());
      case Long l -> values.add(l);
      case Integer i -> values.add(i);
      case Double d -> values.add(d);
      case Float f -> values.add(f);
      default -> values.add(v.toString());
    }
  }

  private JsonNode parseJson(String text, String what) {
    try {
      return json.readTree(text);
    } catch (JsonProcessingException e) {
      throw DslException.malformedJson(what, e);
    }
  }

  private static ObjectNode object(JsonNode node) {
    if (!(node instanceof ObjectNode o)) {
      throw DslException.parsing("the request body must be a JSON object, got " + node);
    }
    return o;
  }

  private static String join(JsonNode array) {
    List<String> names = new ArrayList<>();
    array.forEach(n -> names.add(n.asText()));
    return String.join(",", names);
  }

  /** The {@code _shards} section: how many shards a search had, skipped, and which failed. */
  private static final class Shards {
    final int total;
    int skipped;
    final Map<String, String> failed = new LinkedHashMap<>();
    int timedOut;

    Shards(int total) {
      this.total = total;
    }

    void add(int skipped, Map<String, String> failed, int timedOut) {
      this.skipped = Math.max(this.skipped, skipped);
      this.failed.putAll(failed);
      this.timedOut = Math.max(this.timedOut, timedOut);
    }

    ObjectNode toJson() {
      ObjectNode node = JsonNodeFactory.instance.objectNode();
      node.put("total", total);
      node.put("successful", total - failed.size());
      node.put("skipped", skipped);
      node.put("failed", failed.size());
      if (!failed.isEmpty()) {
        ArrayNode failures = node.putArray("failures");
        failed.forEach((shard, reason) -> {
          ObjectNode f = failures.addObject();
          f.put("index", shard);
          ObjectNode r = f.putObject("reason");
          r.put("type", "exception");
          r.put("reason", reason);
        });
      }
      return node;
    }
  }

  /** Counts the documents a search matches. */
  private static final class Count implements CollectorManager<Count.Counter, Long> {
    @Override
    public Counter newCollector() {
      return new Counter();
    }

    @Override
    public Long reduce(Collection<Counter> collectors) {
      long total = 0;
      for (Counter c : collectors) {
        total += c.count;
      }
      return total;
    }

    static final class Counter implements Collector {
      long count;

      @Override
      public LeafCollector getLeafCollector(LeafReaderContext context) {
        return new LeafCollector() {
          @Override
          public void setScorer(Scorable scorer) {}

          @Override
          public void collect(int doc) {
            count++;
          }
        };
      }

      @Override
      public ScoreMode scoreMode() {
        return ScoreMode.COMPLETE_NO_SCORES;
      }
    }
  }
}
