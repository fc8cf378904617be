/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.MountInfo;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Scroll and point in time over the catalog's mounted indices, as Elasticsearch answers them. A cursor
 * ({@link Cursor}) pins the shards it reads to the snapshots they are mounted from and keeps its position, nothing
 * more: each page is the request parsed again ({@link SearchBody}) over the same shards and run after the position
 * ({@link SearchExecutor#page}). Before each page every pinned shard is checked: an index unmounted, or mounted again
 * from another snapshot, ends the cursor with a 404 naming the index, never a shorter or different answer.
 */
final class CursorApi {
  /** The indices there are now, as the API sees them. */
  interface Indices {
    /** The indices {@code expression} names now, as the API resolves it (a 404 naming one that is not there). */
    List<IndexShards> resolve(String expression, Map<String, String> parameters);

    /** The index of that name now, or null if there is none. */
    IndexShards current(String name);
  }

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final String SHARD_DOC = "_shard_doc";
  private final Catalog catalog;
  private final SearchExecutor executor;
  private final Indices indices;
  final CursorRegistry registry;

  CursorApi(Catalog catalog, SearchExecutor executor, Indices indices, CursorRegistry registry) {
    this.catalog = catalog;
    this.executor = executor;
    this.indices = indices;
    this.registry = registry;
  }

  // ---- scroll ----

  /** {@code _search?scroll=...}: the first page, with {@code _scroll_id} first. */
  ObjectNode openScroll(String expression, JsonNode body, Map<String, String> parameters) throws IOException {
    long start = System.nanoTime();
    Map<String, String> params = new LinkedHashMap<>(parameters);
    long keepAlive = keepAlive(params.remove("scroll"), "scroll");
    ObjectNode request = object(body);
    if (request.has("pit")) {
      throw invalid("using [point in time] is not allowed in a scroll context");
    }
    if (intValue(request, params, "from") > 0) {
      throw invalid("using [from] is not allowed in a scroll context");
    }
    if (request.has("search_after")) {
      throw invalid("[search_after] cannot be used in a scroll context");
    }
    if ((request.has("size") || params.containsKey("size")) && intValue(request, params, "size") == 0) {
      throw invalid("[size] cannot be [0] in a scroll context");
    }
    if ("false".equals(request.path("track_total_hits").asText(params.get("track_total_hits")))) {
      throw invalid("disabling [track_total_hits] is not allowed in a scroll context");
    }
    if (!request.has("track_total_hits") && !params.containsKey("track_total_hits")) {
      request = request.deepCopy();
      request.put("track_total_hits", true); // a scroll counts every hit, as the node's
    }
    List<PinnedShard> pinned = pin(indices.resolve(expression, params));
    List<IndexShards> chosen = check(pinned, null, CursorId.Kind.SCROLL);
    SearchBody parsed = SearchBody.search(request, params, () -> chosen);
    ObjectNode later = request.deepCopy();
    later.remove(List.of("aggs", "aggregations"));
    Cursor cursor = new Cursor(CursorId.Kind.SCROLL, pinned, later.toString(), params, keepAlive, registry.now());
    if (pinned.isEmpty()) {
      String id = registry.open(cursor);
      return withFirst("_scroll_id", id, SearchRenderer.search(parsed, executor.run(parsed), start));
    }
    SearchExecutor.Page page = executor.page(parsed, cursor.shardNames(), null, false);
    cursor.advance(page.last());
    String id = registry.open(cursor);
    return withFirst("_scroll_id", id, SearchRenderer.search(parsed, page.result(), start));
  }

  /**
   * {@code POST|GET /_search/scroll}: the next page of {@code id}, kept open {@code scroll} longer if given (then with
   * {@code _scroll_id} first; without, the node leaves it out, and the scroll stays open its last keep-alive).
   */
  ObjectNode scroll(String id, String scroll) throws IOException {
    long start = System.nanoTime();
    Long keepAlive = scroll == null ? null : keepAlive(scroll, "scroll");
    Cursor cursor = registry.get(id, CursorId.Kind.SCROLL);
    synchronized (cursor) {
      List<IndexShards> chosen = checkOrEnd(cursor, id);
      SearchBody parsed = SearchBody.search(SearchRenderer.parseJson(cursor.request, "the scroll's request"),
          cursor.parameters, () -> chosen);
      ObjectNode answer;
      if (cursor.shards.isEmpty()) {
        answer = SearchRenderer.search(parsed, executor.run(parsed), start);
      } else {
        SearchExecutor.Page page = executor.page(parsed, cursor.shardNames(), cursor.position(), false);
        cursor.advance(page.last());
        answer = SearchRenderer.search(parsed, page.result(), start);
      }
      if (keepAlive != null) {
        cursor.keepAlive(keepAlive, registry.now());
      } else {
        cursor.touch(registry.now());
      }
      return keepAlive == null ? answer : withFirst("_scroll_id", id, answer);
    }
  }

  /** {@code DELETE /_search/scroll}: closes the ids ({@code _all}: every scroll). */
  Freed clearScroll(List<String> ids) {
    if (ids.isEmpty()) {
      throw invalid("no scroll ids specified");
    }
    if (ids.contains("_all")) {
      return new Freed(true, registry.closeAll(CursorId.Kind.SCROLL), 200);
    }
    for (String id : ids) {
      CursorId.parse(id, CursorId.Kind.SCROLL); // every id checked before any is closed
    }
    int freed = 0;
    for (String id : ids) {
      freed += registry.close(id, CursorId.Kind.SCROLL);
    }
    return new Freed(true, freed, freed > 0 ? 200 : 404);
  }

  /**
   * What closing cursors freed, as the node answers: {@code {"succeeded": ..., "num_freed": n}} where {@code n} counts
   * the shards the cursors read, with 404 when none was open.
   */
  record Freed(boolean succeeded, int count, int status) {
    /** The answer's body. */
    ObjectNode json() {
      ObjectNode body = NODES.objectNode();
      body.put("succeeded", succeeded);
      body.put("num_freed", count);
      return body;
    }
  }

  // ---- point in time ----

  /**
   * {@code POST /{index}/_pit?keep_alive=...}: {@code {"id": ..., "_shards": ...}}. A body (the node's
   * {@code index_filter}) is refused, naming its keys: every shard of the indices is pinned.
   */
  ObjectNode openPointInTime(String expression, JsonNode body, Map<String, String> parameters) {
    if (body != null && !body.isNull() && !body.isMissingNode() && !(body.isObject() && body.isEmpty())) {
      List<String> keys = new ArrayList<>();
      body.fieldNames().forEachRemaining(keys::add);
      throw DslException.parsing("a point in time's body " + keys + " is not supported by Permafrost's"
          + " Elasticsearch-compatible search: open it over indices named in the path");
    }
    Map<String, String> params = new LinkedHashMap<>(parameters);
    String keepAliveText = params.remove("keep_alive");
    if (keepAliveText == null) {
      throw new DslException(400, "action_request_validation_exception",
          "Validation Failed: 1: [keep_alive] is not specified;");
    }
    long keepAlive = keepAlive(keepAliveText, "keep_alive");
    for (String name : List.copyOf(params.keySet())) {
      if (List.of("routing", "preference", "allow_partial_search_results", "max_concurrent_shard_requests")
          .contains(name)) {
        params.remove(name);
      }
    }
    SearchBody.checkParameters(params, "_pit");
    List<PinnedShard> pinned = pin(indices.resolve(expression, params));
    String id = registry.open(new Cursor(CursorId.Kind.POINT_IN_TIME, pinned, null, Map.of(), keepAlive,
        registry.now()));
    ObjectNode answer = NODES.objectNode();
    answer.put("id", id);
    answer.set("_shards", SearchRenderer.shards(new SearchResult.Shards(pinned.size())));
    return answer;
  }

  /**
   * {@code DELETE /_pit}: closes the body's {@code id}; an id not open is {@code {"succeeded": false, "num_freed":
   * 0}}, 404, as the node answers.
   */
  Freed closePointInTime(JsonNode body) {
    if (body == null || body.isNull() || body.isMissingNode()) {
      throw new DslException(400, "parse_exception", "request body or source parameter is required");
    }
    if (!body.path("id").isTextual()) {
      throw DslException.illegalArgument("search context id is is not provided");
    }
    int freed = registry.close(body.get("id").textValue(), CursorId.Kind.POINT_IN_TIME);
    return new Freed(freed > 0, freed, freed > 0 ? 200 : 404);
  }

  /**
   * A {@code _search} whose body names a {@code pit}: the pinned shards searched with the request, sorted as asked
   * then by {@code _shard_doc} (ascending unless the sort names it descending), each hit's {@code sort} ending with its
   * {@code _shard_doc} value, and {@code search_after} read over the same; {@code pit_id} first.
   */
  ObjectNode searchPointInTime(String expression, JsonNode body, Map<String, String> parameters) throws IOException {
    long start = System.nanoTime();
    if (expression != null && !expression.isEmpty()) {
      throw invalid("[indices] cannot be used with point in time. Do not specify any index with point in time.");
    }
    if (parameters.containsKey("scroll")) {
      throw invalid("using [point in time] is not allowed in a scroll context");
    }
    ObjectNode request = object(body).deepCopy();
    JsonNode pit = request.remove("pit");
    if (!pit.isObject()) {
      throw DslException.parsing("[pit] must be an object: {\"pit\": {\"id\": \"...\", \"keep_alive\": \"1m\"}}");
    }
    if (!pit.path("id").isTextual()) {
      throw DslException.illegalArgument("point in time id is not provided");
    }
    for (String key : (Iterable<String>) pit::fieldNames) {
      if (!key.equals("id") && !key.equals("keep_alive")) {
        throw DslException.parsing("[pit] does not support [" + key + "]");
      }
    }
    String id = pit.get("id").textValue();
    Long keepAlive = pit.has("keep_alive") ? keepAlive(pit.get("keep_alive").asText(), "keep_alive") : null;
    Cursor cursor = registry.get(id, CursorId.Kind.POINT_IN_TIME);
    List<IndexShards> chosen = checkOrEnd(cursor, id);
    Boolean named = stripShardDoc(request);
    boolean tieDescending = Boolean.TRUE.equals(named);
    // sorted on _shard_doc alone: the documents shard after shard, each hit's one sort value its _shard_doc
    boolean shardDocAlone = named != null && !request.has("sort");
    if (shardDocAlone) {
      request.putArray("sort").addObject().put("_doc", tieDescending ? "desc" : "asc");
    }
    JsonNode after = request.remove("search_after");
    SearchBody parsed = SearchBody.search(request, parameters, () -> chosen);
    CursorPosition position = null;
    boolean showTie = true;
    if (after != null) {
      if (parsed.from() > 0) {
        throw DslException.illegalArgument("[from] parameter must be set to 0 when [search_after] is used");
      }
      if (shardDocAlone) {
        if (!after.isArray() || after.size() != 1 || !after.get(0).isIntegralNumber()) {
          throw DslException.illegalArgument("[search_after] of a sort on [_shard_doc] alone must be its one value, got "
              + after);
        }
        position = CursorPosition.ofShardDoc(new Object[0], after.get(0).asLong(), cursor.shards.size());
      } else {
        position = position(parsed, after, cursor.shards.size(), tieDescending);
        showTie = after.size() > (parsed.sort().lucene() == null ? 1 : parsed.sort().fields().size());
      }
    }
    ObjectNode answer;
    if (!parsed.fetchesHits() || cursor.shards.isEmpty()) {
      answer = SearchRenderer.search(parsed, executor.run(parsed), start);
    } else {
      SearchExecutor.Page page = executor.page(parsed, cursor.shardNames(), position, tieDescending);
      answer = SearchRenderer.search(parsed, page.result(), start);
      JsonNode hits = answer.at("/hits/hits");
      for (int i = 0; i < hits.size() && showTie; i++) {
        if (shardDocAlone) {
          ((ObjectNode) hits.get(i)).putArray("sort").add(page.shardDocs()[i]);
        } else if (hits.get(i).get("sort") instanceof ArrayNode sort) { // by score, the node shows no sort values
          sort.add(page.shardDocs()[i]);
        }
      }
    }
    if (keepAlive != null) {
      cursor.keepAlive(keepAlive, registry.now());
    } else {
      cursor.touch(registry.now());
    }
    return withFirst("pit_id", id, answer);
  }

  /**
   * Removes {@code _shard_doc} from the request's sort (it is the tie-breaker every point in time's search ends with):
   * whether it is asked descending, or null if the sort does not name it. Only as the sort's last entry.
   */
  private static Boolean stripShardDoc(ObjectNode request) {
    JsonNode sort = request.get("sort");
    if (sort == null) {
      return null;
    }
    ArrayNode entries = sort.isArray() ? (ArrayNode) sort.deepCopy() : NODES.arrayNode().add(sort);
    Boolean descending = null;
    for (int i = 0; i < entries.size(); i++) {
      JsonNode e = entries.get(i);
      String field = e.isTextual() ? e.textValue() : e.isObject() && e.size() == 1 ? e.fieldNames().next() : null;
      if (SHARD_DOC.equals(field)) {
        if (i != entries.size() - 1) {
          throw DslException.illegalArgument("[_shard_doc] must be the last sort of a point in time's search");
        }
        JsonNode options = e.isObject() ? e.get(SHARD_DOC) : null;
        String order = options == null ? "asc" : options.isTextual() ? options.textValue()
            : options.path("order").asText("asc");
        if (!order.equals("asc") && !order.equals("desc")) {
          throw DslException.parsing("[sort] order of [_shard_doc] must be asc or desc, got [" + order + "]");
        }
        descending = order.equals("desc");
        entries.remove(i);
        break;
      }
    }
    if (descending == null) {
      return null;
    }
    if (entries.isEmpty()) {
      request.remove("sort");
    } else {
      request.set("sort", entries);
    }
    return descending;
  }

  /**
   * {@code search_after} of a point in time's search: the sort's values (the score when sorted by score) then the
   * {@code _shard_doc} value; without it (as the node takes it too), after every hit with those values.
   */
  private static CursorPosition position(SearchBody parsed, JsonNode after, int shards, boolean tieDescending) {
    SortSpec sort = parsed.sort();
    int fields = sort.lucene() == null ? 1 : sort.fields().size();
    if (!after.isArray() || after.size() != fields + 1 && after.size() != fields) {
      throw DslException.illegalArgument("[search_after] has " + (after.isArray() ? after.size() : 1) + " value(s) but"
          + " the sort has " + fields + " field(s), " + (fields + 1) + " with the point in time's tie-breaker"
          + " [_shard_doc]: give one value per sort field");
    }
    JsonNode last = after.size() == fields ? NODES.numberNode(tieDescending ? CursorPosition.shardDoc(0, 0)
        : CursorPosition.shardDoc(Math.max(0, shards - 1), Integer.MAX_VALUE)) : after.get(fields);
    if (!last.canConvertToLong() || !last.isIntegralNumber() && !last.asText().matches("-?\\d+")) {
      throw DslException.illegalArgument("[search_after] value [" + last.asText() + "] of [_shard_doc] is not a"
          + " number");
    }
    ArrayNode values = NODES.arrayNode();
    for (int i = 0; i < fields; i++) {
      values.add(after.get(i));
    }
    Object[] ordering;
    if (sort.lucene() == null) {
      JsonNode score = values.get(0);
      if (!score.isNumber() && !score.asText().matches("-?[0-9.eE+-]+")) {
        throw DslException.illegalArgument("[search_after] value [" + score.asText() + "] of [_score] is not a number");
      }
      ordering = new Object[] {(float) score.asDouble()};
    } else {
      ordering = sort.searchAfter(values, parsed.mapping());
    }
    if (SearchExecutor.docOrder(sort, tieDescending)) {
      ordering = new Object[0];
    }
    return CursorPosition.ofShardDoc(ordering, last.asLong(), shards);
  }

  // ---- pinning ----

  /**
   * The shards of {@code chosen} with the snapshots they are mounted from now: by index name, then in each index's
   * order, so that a shard's ordinal does not depend on how the expression listed the indices.
   */
  private List<PinnedShard> pin(List<IndexShards> chosen) {
    List<PinnedShard> pinned = new ArrayList<>();
    List<IndexShards> byName = new ArrayList<>(chosen);
    byName.sort(java.util.Comparator.comparing(IndexShards::name));
    for (IndexShards index : byName) {
      for (String shard : index.shards()) {
        MountInfo info = mounted(index.name(), shard, null);
        pinned.add(new PinnedShard(index.name(), shard, info.repository(), info.snapshot()));
      }
    }
    return pinned;
  }

  /** {@link #check}, ending the cursor if it fails. */
  private List<IndexShards> checkOrEnd(Cursor cursor, String id) {
    try {
      return check(cursor.shards, id, cursor.kind);
    } catch (DslException e) {
      registry.end(id);
      throw e;
    }
  }

  /**
   * The pinned shards' indices as they are mounted now, each with its mapping: a 404 naming the index if one is no
   * longer mounted, or its shards are not the ones pinned, or one is mounted from another snapshot.
   */
  private List<IndexShards> check(List<PinnedShard> pinned, String id, CursorId.Kind kind) {
    Map<String, List<String>> byIndex = new LinkedHashMap<>();
    for (PinnedShard p : pinned) {
      byIndex.computeIfAbsent(p.index(), k -> new ArrayList<>()).add(p.shard());
    }
    for (PinnedShard p : pinned) {
      MountInfo info = mounted(p.index(), p.shard(), kind);
      if (!Objects.equals(info.snapshot(), p.snapshot()) || !Objects.equals(info.repository(), p.repository())) {
        throw ended(kind, "index [" + p.index() + "] is now mounted from snapshot [" + info.snapshot() + "] of ["
            + info.repository() + "], not from [" + p.snapshot() + "] of [" + p.repository() + "] which the " + kind.what
            .replace(" id", "") + " reads");
      }
    }
    List<IndexShards> out = new ArrayList<>();
    for (Map.Entry<String, List<String>> e : byIndex.entrySet()) {
      IndexShards index = indices.current(e.getKey());
      if (index == null || !index.shards().equals(e.getValue())) {
        throw ended(kind, "index [" + e.getKey() + "] is no longer " + (index == null ? "mounted" : "mounted as the "
            + kind.what.replace(" id", "") + " read it (its shards are " + index.shards() + ", were "
            + e.getValue() + ")"));
      }
      out.add(index);
    }
    return out;
  }

  /** The shard's mount now: when it is not mounted, a 404 naming its index (a refusal to open if no cursor yet). */
  private MountInfo mounted(String index, String shard, CursorId.Kind kind) {
    try {
      return catalog.info(shard);
    } catch (IllegalArgumentException e) {
      if (kind == null) {
        throw new DslException(404, "index_not_found_exception", "no such index [" + index + "]: its shard [" + shard
            + "] is not mounted");
      }
      throw ended(kind, "index [" + index + "] is no longer mounted (its shard [" + shard + "] was unmounted)");
    }
  }

  private static DslException ended(CursorId.Kind kind, String why) {
    return DslException.searchContextMissing("the " + kind.what.replace(" id", "") + " has ended: " + why);
  }

  // ---- helpers ----

  /** A keep-alive ({@code scroll} or {@code keep_alive}) in milliseconds: at least 1, at most a day. */
  static long keepAlive(String text, String name) {
    Duration d;
    try {
      d = SearchBody.timeout(text);
    } catch (DslException e) {
      throw DslException.illegalArgument("failed to parse [" + text + "]: [" + name + "] must be a time value with a"
          + " unit (d, h, m, s, ms, micros, nanos)");
    }
    if (d == null) {
      throw DslException.illegalArgument("[" + name + "] must be a time value such as 1m, got [" + text + "]");
    }
    long millis = Math.max(1, d.toMillis());
    if (millis > CursorRegistry.MAX_KEEP_ALIVE_MILLIS) {
      throw DslException.illegalArgument("Keep alive for request (" + text + ") is too large. It must be less than (1d)."
          + " This limit can be set by changing the [search.max_keep_alive] cluster level setting.");
    }
    return millis;
  }

  /** The node's refusal of a request it validates before it searches: 400, {@code action_request_validation_exception}. */
  private static DslException invalid(String reason) {
    return new DslException(400, "action_request_validation_exception", "Validation Failed: 1: " + reason + ";");
  }

  private static ObjectNode withFirst(String key, String id, ObjectNode answer) {
    ObjectNode out = NODES.objectNode();
    out.put(key, id);
    out.setAll(answer);
    return out;
  }

  private static ObjectNode object(JsonNode body) {
    if (body == null || body.isNull() || body.isMissingNode()) {
      return NODES.objectNode();
    }
    if (!(body instanceof ObjectNode o)) {
      throw DslException.parsing("the request body must be a JSON object, got " + body);
    }
    return o;
  }

  private static int intValue(ObjectNode request, Map<String, String> params, String name) {
    String text = request.has(name) ? request.get(name).asText() : params.get(name);
    try {
      return text == null ? -1 : Integer.parseInt(text);
    } catch (NumberFormatException e) {
      return -1; // refused with its name when the request is parsed
    }
  }
}
