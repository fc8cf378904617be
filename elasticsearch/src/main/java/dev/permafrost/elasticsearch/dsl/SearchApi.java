/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.elasticsearch.FieldKind;
import dev.permafrost.elasticsearch.IndexMapping;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The common part of Elasticsearch's search API over a {@link Catalog}'s mounted indices: {@code _search},
 * {@code _msearch}, {@code _count}, {@code _mapping} and {@code _field_caps}, with requests and responses as
 * Elasticsearch's JSON, so that its clients (the official Java client, {@code curl} scripts, Grafana's data source)
 * search mounted snapshots as they search a cluster. A request is parsed into its model ({@code SearchBody}: the URL's
 * parameters and the body's keys read in one place, queries translated by {@link QueryDsl} and aggregations parsed by
 * {@link Aggregations} over each index's mapping), then run ({@code SearchExecutor}, which {@code _search},
 * {@code _msearch} and {@code _count} share), then written as Elasticsearch's JSON ({@code SearchRenderer}); what is
 * not supported is refused with a {@link DslException} naming it (a 400), never answered differently. Thread-safe.
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
   * @param settings its settings as its snapshot recorded them, flattened ({@code index.number_of_shards}, ...; none
   *     for an index whose snapshot records none): what {@code GET /{index}} and {@code _cat/indices} show
   */
  public record Index(String name, List<String> shards, IndexMapping mapping, Map<String, String> settings) {
    public Index {
      shards = List.copyOf(shards);
      settings = Map.copyOf(settings);
    }

    /** An index whose snapshot records no settings. */
    public Index(String name, List<String> shards, IndexMapping mapping) {
      this(name, shards, mapping, Map.of());
    }
  }

  /** The indices there are now, by name (asked at each request). */
  @FunctionalInterface
  public interface Indices {
    /** Every index, by name, in the order listings show them. */
    Map<String, Index> current();
  }

  /** Elasticsearch's {@code index.max_result_window}: from + size may not pass it. */
  public static final int MAX_RESULT_WINDOW = SearchBody.MAX_RESULT_WINDOW;

  private final SearchExecutor executor;
  private final Indices indices;
  private final CursorApi cursors;
  private final JsonNodeFactory nodes = JsonNodeFactory.instance;

  /** The API over {@code catalog}'s indices as {@code indices} lists them. */
  public SearchApi(Catalog catalog, Indices indices) {
    this(catalog, indices, System::currentTimeMillis);
  }

  /** The API whose scrolls' and points in time's keep-alives run on {@code clock} (milliseconds). */
  SearchApi(Catalog catalog, Indices indices, java.util.function.LongSupplier clock) {
    this.executor = new SearchExecutor(catalog);
    this.indices = indices;
    this.cursors = new CursorApi(catalog, executor, new CursorApi.Indices() {
      @Override
      public List<IndexShards> resolve(String expression, Map<String, String> parameters) {
        return shards(SearchApi.this.resolve(expression, parameters));
      }

      @Override
      public IndexShards current(String name) {
        Index index = indices.current().get(name);
        return index == null ? null : new IndexShards(index.name(), index.shards(), index.mapping());
      }
    }, new CursorRegistry(clock));
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
    if (body != null && body.has("pit")) {
      return cursors.searchPointInTime(expression, body, parameters);
    }
    if (parameters.containsKey("scroll")) {
      return cursors.openScroll(expression, body, parameters);
    }
    long start = System.nanoTime();
    SearchBody request = SearchBody.search(body, parameters, () -> shards(resolve(expression, parameters)));
    return SearchRenderer.search(request, executor.run(request), start);
  }

  /** {@code GET|POST /{index}/_count}: {@code {"count": n, "_shards": ...}}. */
  public ObjectNode count(String expression, JsonNode body, Map<String, String> parameters) throws IOException {
    SearchBody request = SearchBody.count(body, parameters, () -> shards(resolve(expression, parameters)));
    return SearchRenderer.count(executor.run(request));
  }

  /**
   * {@code POST /_msearch} and {@code /{index}/_msearch}: each header and body line pair searched as
   * {@link #search}, answered in order; a failing search answers with its error and status, and the others still
   * run.
   */
  public ObjectNode msearch(String expression, byte[] ndjson, Map<String, String> parameters) throws IOException {
    long start = System.nanoTime();
    SearchBody.checkParameters(parameters, "_msearch");
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
        JsonNode header = SearchRenderer.parseJson(lines.get(i), "header line " + (i + 1));
        JsonNode body = SearchRenderer.parseJson(lines.get(i + 1), "body line " + (i + 2));
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

  // ---- scroll and point in time: see CursorApi ----

  /**
   * {@code POST|GET /_search/scroll} (and {@code /_search/scroll/{id}}): the next page of the scroll {@code scrollId}
   * (a 404 {@code search_context_missing_exception} if it is not open: unknown, cleared, lapsed, or ended because an
   * index it reads was unmounted or mounted again from another snapshot; a 400 if it is not a scroll id).
   *
   * @param scroll how much longer to keep it open ({@code 1m}), or null: as long as last asked
   */
  public ObjectNode scroll(String scrollId, String scroll) throws IOException {
    return cursors.scroll(scrollId, scroll);
  }

  /** What closing scrolls or points in time freed: the body, and the status (404 when nothing was open). */
  public record Closed(ObjectNode body, int status) {}

  /** {@code DELETE /_search/scroll}: closes the scrolls {@code scrollIds} ({@code _all}: every one). */
  public Closed clearScroll(List<String> scrollIds) {
    CursorApi.Freed freed = cursors.clearScroll(scrollIds);
    return new Closed(freed.json(), freed.status());
  }

  /**
   * {@code POST /{index}/_pit?keep_alive=...}: opens a point in time over the indices {@code expression} names, each
   * pinned to the snapshot it is mounted from: {@code {"id": ..., "_shards": ...}}. A search names it in its body's
   * {@code pit} ({@link #search}, with no index).
   */
  public ObjectNode openPointInTime(String expression, Map<String, String> parameters) {
    return cursors.openPointInTime(expression, null, parameters);
  }

  /** {@link #openPointInTime(String, Map)} with the request's body, which must be empty (no {@code index_filter}). */
  public ObjectNode openPointInTime(String expression, JsonNode body, Map<String, String> parameters) {
    return cursors.openPointInTime(expression, body, parameters);
  }

  /** {@code DELETE /_pit} with {@code {"id": ...}}. */
  public Closed closePointInTime(JsonNode body) {
    CursorApi.Freed freed = cursors.closePointInTime(body);
    return new Closed(freed.json(), freed.status());
  }

  /** How many scrolls and points in time are open (those lapsed but not yet swept too). */
  public int openCursors() {
    return cursors.registry.size();
  }

  /** {@code GET /{index}/_mapping}: each index's mapping as its snapshot (or declaration) gave it. */
  public ObjectNode mapping(String expression, Map<String, String> parameters) {
    SearchBody.checkParameters(parameters, "_mapping");
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
   * indices; the metadata fields a 9.3.3 node lists ({@code _id}, {@code _index}, {@code _source}, ...) when a pattern
   * matches them, as {@code metadata_field: true}. {@code fields} is a comma-separated list of patterns, as the URL
   * gives them.
   */
  public ObjectNode fieldCaps(String expression, String fields, Map<String, String> parameters) {
    List<String> patterns = new ArrayList<>();
    for (String f : (fields == null || fields.isBlank() ? "*" : fields).split(",")) {
      patterns.add(f.trim());
    }
    return fieldCaps(expression, patterns, parameters);
  }

  /**
   * As {@link #fieldCaps(String, String, Map)}, each of {@code fields} one pattern: a request body's {@code fields}
   * (an array of patterns, or one string that a node reads as one pattern, commas and all).
   */
  public ObjectNode fieldCaps(String expression, List<String> fields, Map<String, String> parameters) {
    SearchBody.checkParameters(parameters, "_field_caps");
    List<Index> chosen = resolve(expression, parameters);
    List<Pattern> wanted = new ArrayList<>();
    for (String f : fields) {
      wanted.add(IndexExpression.glob(f));
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
            String type = (f.nestedPath() != null && f.nestedPath().equals(parent) ? FieldKind.NESTED : FieldKind.OBJECT)
                .typeName();
            caps.computeIfAbsent(parent, k -> new LinkedHashMap<>()).computeIfAbsent(type,
                k -> new Capability(false, false)).indices.add(index.name());
          }
        }
        boolean aggregatable = f.docValues() && !f.kind().isText();
        caps.computeIfAbsent(f.path(), k -> new LinkedHashMap<>()).computeIfAbsent(f.type(),
            k -> new Capability(f.indexed(), aggregatable)).indices.add(index.name());
      }
    }
    Set<String> metadata = new LinkedHashSet<>();
    if (!chosen.isEmpty()) {
      for (MetadataFields.Field m : MetadataFields.ALL) {
        if (wanted.stream().anyMatch(p -> p.matcher(m.name()).matches())) {
          caps.computeIfAbsent(m.name(), k -> new LinkedHashMap<>()).computeIfAbsent(m.type(),
              k -> new Capability(m.searchable(), m.aggregatable()));
          metadata.add(m.name());
        }
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
        t.put("metadata_field", metadata.contains(field));
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
    return SearchRenderer.error(e);
  }

  /** Elasticsearch's error body with this status, type and reason. */
  public static ObjectNode error(int status, String type, String reason) {
    return SearchRenderer.error(status, type, type, reason);
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

  private static List<IndexShards> shards(List<Index> chosen) {
    List<IndexShards> out = new ArrayList<>(chosen.size());
    for (Index index : chosen) {
      out.add(new IndexShards(index.name(), index.shards(), index.mapping()));
    }
    return out;
  }

  private static String join(JsonNode array) {
    List<String> names = new ArrayList<>();
    array.forEach(n -> names.add(n.asText()));
    return String.join(",", names);
  }
}
