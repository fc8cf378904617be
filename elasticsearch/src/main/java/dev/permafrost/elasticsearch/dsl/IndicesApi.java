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
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Elasticsearch's index, alias, {@code _cat} and cluster APIs over the indices a {@link SearchApi} searches, answered
 * as a 9.3.3 node answers them: {@code HEAD /{index}}, {@code GET /{index}}, {@code GET /_resolve/index/{pattern}},
 * {@code GET /_alias}, {@code GET /_cat/indices}, {@code GET /_cat/count} and {@code GET /_cluster/health}. Every
 * index is a primary shard per mounted shard and no replica; it is {@code green} when each of its shards is mounted,
 * {@code red} when one is not or when it was left out as unreadable ({@link Unreadable}: it then shows in
 * {@code _cat/indices} and counts in {@code _cluster/health}, and the answer warns why). Sizes and document counts
 * are those the snapshots' manifests record: nothing is opened to answer, except {@code _cat/count}, which counts as
 * {@code _count} does. A snapshot never changes, so a {@code wait_for_status} that is not met now never will be: it
 * answers at once that it timed out (408), as a node does when its wait ends. Thread-safe.
 */
public final class IndicesApi {
  /**
   * An index that is not searched because it cannot be read (formats this reader does not read, a damaged file).
   *
   * @param name its name
   * @param shards its primary shards
   * @param reason why it cannot be read
   */
  public record Unreadable(String name, int shards, String reason) {}

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final DateTimeFormatter CREATION = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
      .withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);
  private static final List<CatTable.Column> INDEX_COLUMNS = List.of(
      new CatTable.Column("health", List.of("h"), false, true, "current health status"),
      new CatTable.Column("status", List.of("s"), false, true, "open/close status"),
      new CatTable.Column("index", List.of("i", "idx"), false, true, "index name"),
      new CatTable.Column("uuid", List.of("id", "uuid"), false, true, "index uuid"),
      new CatTable.Column("pri", List.of("p", "shards.primary", "shardsPrimary"), true, true, "number of primary shards"),
      new CatTable.Column("rep", List.of("r", "shards.replica", "shardsReplica"), true, true, "number of replica shards"),
      new CatTable.Column("docs.count", List.of("dc", "docsCount"), true, true, "available docs"),
      new CatTable.Column("docs.deleted", List.of("dd", "docsDeleted"), true, true, "deleted docs"),
      new CatTable.Column("creation.date", List.of("cd"), false, false, "index creation date (millisecond value)"),
      new CatTable.Column("creation.date.string", List.of("cds"), false, false, "index creation date (as string)"),
      new CatTable.Column("store.size", List.of("ss", "storeSize"), true, true, "store size of primaries & replicas"),
      new CatTable.Column("pri.store.size", List.of(), true, true, "store size of primaries"),
      new CatTable.Column("dataset.size", List.of(), true, true, "total size of dataset"));
  private static final List<CatTable.Column> COUNT_COLUMNS = List.of(
      new CatTable.Column("epoch", List.of("t", "time"), false, true, "seconds since 1970-01-01 00:00:00"),
      new CatTable.Column("timestamp", List.of("ts", "hms", "hhmmss"), false, true, "time in HH:MM:SS"),
      new CatTable.Column("count", List.of("dc", "docs.count", "docsCount"), false, true, "the document count"));
  private static final Set<String> COMMON = Set.of("pretty", "human", "error_trace", "filter_path");
  private static final Set<String> EXPRESSION = Set.of("ignore_unavailable", "allow_no_indices", "expand_wildcards");

  private final Catalog catalog;
  private final SearchApi search;
  private final SearchApi.Indices indices;
  private final Supplier<List<Unreadable>> unreadable;
  private final String clusterName;

  /**
   * The APIs over {@code indices} (those {@code search} searches), their shards mounted in {@code catalog}, with the
   * indices left out as unreadable that {@code unreadable} lists at each request, in a cluster named
   * {@code clusterName}.
   */
  public IndicesApi(Catalog catalog, SearchApi search, SearchApi.Indices indices,
      Supplier<List<Unreadable>> unreadable, String clusterName) {
    this.catalog = catalog;
    this.search = search;
    this.indices = indices;
    this.unreadable = unreadable;
    this.clusterName = clusterName;
  }

  /** {@code HEAD /{index}}: whether the expression names indices that are there (a pattern that matches none does). */
  public boolean exists(String expression, Map<String, String> parameters) {
    check(parameters, "/" + expression, EXPRESSION, Set.of("local", "flat_settings", "include_defaults"));
    try {
      resolve(expression, parameters);
      return true;
    } catch (DslException e) {
      if (e.status() == 404) {
        return false;
      }
      throw e;
    }
  }

  /**
   * {@code GET /{index}}: each index's aliases (none), mappings and settings as its snapshot recorded them (nested by
   * their dots, or flat with {@code flat_settings=true}).
   */
  public ObjectNode get(String expression, Map<String, String> parameters) {
    check(parameters, "/" + expression, EXPRESSION, Set.of("local", "flat_settings", "include_defaults",
        "master_timeout", "features"));
    boolean flat = Boolean.parseBoolean(parameters.getOrDefault("flat_settings", "false"));
    ObjectNode out = NODES.objectNode();
    for (SearchApi.Index index : resolve(expression, parameters)) {
      ObjectNode body = out.putObject(index.name());
      body.putObject("aliases");
      body.set("mappings", index.mapping().json());
      body.set("settings", settings(index.settings(), flat));
    }
    return out;
  }

  /** {@code GET /_resolve/index/{expression}}: the indices it names, by name, open; no alias, no data stream. */
  public ObjectNode resolveIndex(String expression, Map<String, String> parameters) {
    check(parameters, "/_resolve/index/" + expression, EXPRESSION, Set.of("mode"));
    ObjectNode out = NODES.objectNode();
    ArrayNode list = out.putArray("indices");
    List<SearchApi.Index> chosen = new ArrayList<>(resolve(expression, parameters));
    chosen.sort(Comparator.comparing(SearchApi.Index::name));
    for (SearchApi.Index index : chosen) {
      ObjectNode i = list.addObject();
      i.put("name", index.name());
      i.putArray("attributes").add("open");
      i.put("mode", index.settings().getOrDefault("index.mode", "standard"));
    }
    out.putArray("aliases");
    out.putArray("data_streams");
    return out;
  }

  /** {@code GET /_alias} and {@code /{index}/_alias}: every index it names, with no alias (there are none). */
  public ObjectNode aliases(String expression, Map<String, String> parameters) {
    check(parameters, expression == null ? "/_alias" : "/" + expression + "/_alias", EXPRESSION,
        Set.of("local", "master_timeout"));
    ObjectNode out = NODES.objectNode();
    for (SearchApi.Index index : resolve(expression, parameters)) {
      out.putObject(index.name()).putObject("aliases");
    }
    return out;
  }

  /**
   * {@code GET /_cat/indices} and {@code /_cat/indices/{index}}: health, status, index, uuid, pri, rep, docs.count,
   * docs.deleted, store.size, pri.store.size, dataset.size (and creation.date, creation.date.string with {@code h}),
   * an unreadable index red with its counts and sizes empty.
   */
  public Answer catIndices(String expression, Map<String, String> parameters) {
    checkCat(parameters, expression == null ? "/_cat/indices" : "/_cat/indices/" + expression,
        Set.of("health", "pri", "include_unloaded_segments"));
    CatTable table = new CatTable("_cat/indices", INDEX_COLUMNS);
    String health = parameters.get("health");
    Map<String, MountInfo> mounted = mounted();
    for (SearchApi.Index index : resolve(expression, parameters)) {
      Shards s = shards(index, mounted);
      String status = s.missing == 0 ? "green" : "red";
      if (health != null && !health.equals(status)) {
        continue;
      }
      Long created = number(index.settings().get("index.creation_date"));
      table.add(status, "open", index.name(), index.settings().get("index.uuid"), (long) index.shards().size(), 0L,
          s.missing == 0 ? s.docs : null, s.missing == 0 ? s.deleted : null, created,
          created == null ? null : CREATION.format(Instant.ofEpochMilli(created)),
          s.missing == 0 ? new CatTable.Bytes(s.bytes) : null, s.missing == 0 ? new CatTable.Bytes(s.bytes) : null,
          s.missing == 0 ? new CatTable.Bytes(s.bytes) : null);
    }
    if (expression == null || expression.isBlank() || expression.equals("_all") || expression.equals("*")) {
      for (Unreadable u : unreadable.get()) {
        if (health == null || health.equals("red")) {
          table.add("red", "open", u.name(), null, (long) u.shards(), 0L, null, null, null, null, null, null, null);
        }
      }
    }
    return table.render(parameters);
  }

  /**
   * {@code GET|POST /_cat/count} and {@code /_cat/count/{index}}: the time and the documents the indices hold (that
   * match the body's {@code query}, if it has one), counted as {@code _count} counts them.
   */
  public Answer catCount(String expression, JsonNode body, Map<String, String> parameters) throws IOException {
    checkCat(parameters, expression == null ? "/_cat/count" : "/_cat/count/" + expression, Set.of("q"));
    Map<String, String> countParameters = parameters.containsKey("q") ? Map.of("q", parameters.get("q")) : Map.of();
    long count = search.count(expression, body, countParameters).get("count").asLong();
    Instant now = Instant.now();
    CatTable table = new CatTable("_cat/count", COUNT_COLUMNS);
    table.add(Long.toString(now.getEpochSecond()), CLOCK.format(now), count);
    return table.render(parameters);
  }

  /**
   * {@code GET /_cluster/health} and {@code /_cluster/health/{index}}: green where every index's shards are mounted,
   * red where one is not or an index was left out as unreadable (the answer warns why); {@code level=indices} or
   * {@code shards} adds each index (and shard). An index expression that names no index is red and timed out (408),
   * as a node answers once its wait for the index ends; so is a {@code wait_for_status} above the status.
   */
  public Answer clusterHealth(String expression, Map<String, String> parameters) {
    String path = expression == null ? "/_cluster/health" : "/_cluster/health/" + expression;
    check(parameters, path, EXPRESSION, Set.of("level", "local", "master_timeout", "timeout", "wait_for_active_shards",
        "wait_for_events", "wait_for_nodes", "wait_for_no_initializing_shards", "wait_for_no_relocating_shards",
        "wait_for_status"));
    String level = parameters.getOrDefault("level", "cluster");
    if (!Set.of("cluster", "indices", "shards").contains(level)) {
      throw DslException.illegalArgument("level must be one of [cluster, indices, shards], not [" + level + "]");
    }
    List<SearchApi.Index> chosen;
    boolean named = expression != null && !expression.isBlank() && !expression.equals("_all");
    boolean missing = false;
    try {
      chosen = resolve(expression, parameters);
    } catch (DslException e) {
      if (e.status() != 404) {
        throw e;
      }
      chosen = List.of();
      missing = true;
    }
    List<String> warnings = new ArrayList<>();
    int active = 0;
    int unassigned = 0;
    ObjectNode perIndex = NODES.objectNode();
    Map<String, MountInfo> mounted = mounted();
    for (SearchApi.Index index : chosen) {
      Shards s = shards(index, mounted);
      active += index.shards().size() - s.missing;
      unassigned += s.missing;
      for (String shard : s.unmounted) {
        warnings.add("index [" + index.name() + "] cannot be read: its shard [" + shard + "] is not mounted");
      }
      ObjectNode i = perIndex.putObject(index.name());
      indexHealth(i, index.shards().size(), index.shards().size() - s.missing);
      if (level.equals("shards")) {
        ObjectNode shards = i.putObject("shards");
        for (int n = 0; n < index.shards().size(); n++) {
          boolean up = !s.unmounted.contains(index.shards().get(n));
          ObjectNode sh = shards.putObject(Integer.toString(n));
          sh.put("status", up ? "green" : "red");
          sh.put("primary_active", up);
          sh.put("active_shards", up ? 1 : 0);
          sh.put("relocating_shards", 0);
          sh.put("initializing_shards", 0);
          sh.put("unassigned_shards", up ? 0 : 1);
          sh.put("unassigned_primary_shards", up ? 0 : 1);
        }
      }
    }
    if (!named || expression.equals("*")) {
      for (Unreadable u : unreadable.get()) {
        unassigned += u.shards();
        warnings.add("index [" + u.name() + "] cannot be read: " + u.reason());
        indexHealth(perIndex.putObject(u.name()), u.shards(), 0);
      }
    }
    String status = missing || unassigned > 0 ? "red" : "green";
    String wanted = parameters.get("wait_for_status");
    boolean timedOut = missing || (wanted != null && rank(status) > rank(wanted));
    ObjectNode body = NODES.objectNode();
    body.put("cluster_name", clusterName);
    body.put("status", status);
    body.put("timed_out", timedOut);
    body.put("number_of_nodes", 1);
    body.put("number_of_data_nodes", 1);
    body.put("active_primary_shards", active);
    body.put("active_shards", active);
    body.put("relocating_shards", 0);
    body.put("initializing_shards", 0);
    body.put("unassigned_shards", unassigned);
    body.put("unassigned_primary_shards", unassigned);
    body.put("delayed_unassigned_shards", 0);
    body.put("number_of_pending_tasks", 0);
    body.put("number_of_in_flight_fetch", 0);
    body.put("task_max_waiting_in_queue_millis", 0);
    body.put("active_shards_percent_as_number", active + unassigned == 0 || missing ? 100.0
        : 100.0 * active / (active + unassigned));
    if (!level.equals("cluster")) {
      body.set("indices", perIndex);
    }
    return new Answer(timedOut ? 408 : 200, body, null, warnings);
  }

  private static int rank(String status) {
    return switch (status) {
      case "green" -> 0;
      case "yellow" -> 1;
      case "red" -> 2;
      default -> throw DslException.illegalArgument("wait_for_status is green, yellow or red, not [" + status + "]");
    };
  }

  private static void indexHealth(ObjectNode i, int shards, int active) {
    i.put("status", active == shards ? "green" : "red");
    i.put("number_of_shards", shards);
    i.put("number_of_replicas", 0);
    i.put("active_primary_shards", active);
    i.put("active_shards", active);
    i.put("relocating_shards", 0);
    i.put("initializing_shards", 0);
    i.put("unassigned_shards", shards - active);
    i.put("unassigned_primary_shards", shards - active);
  }

  /** What the catalog records of an index's shards: documents, deleted documents and bytes, and those not mounted. */
  private static Shards shards(SearchApi.Index index, Map<String, MountInfo> mounted) {
    Shards s = new Shards();
    for (String shard : index.shards()) {
      MountInfo info = mounted.get(shard);
      if (info == null) {
        s.missing++;
        s.unmounted.add(shard);
      } else {
        s.docs += info.numDocs();
        s.deleted += info.maxDoc() - info.numDocs();
        s.bytes += info.sizeInBytes();
      }
    }
    return s;
  }

  /** Every mounted index of the catalog, by name, as it is now. */
  private Map<String, MountInfo> mounted() {
    Map<String, MountInfo> mounted = new HashMap<>();
    for (MountInfo info : catalog.list()) {
      mounted.put(info.name(), info);
    }
    return mounted;
  }

  private static final class Shards {
    long docs;
    long deleted;
    long bytes;
    int missing;
    final List<String> unmounted = new ArrayList<>();
  }

  /** Settings flattened by their dots, nested again (the node's default) or kept flat and sorted. */
  private static ObjectNode settings(Map<String, String> flat, boolean keepFlat) {
    ObjectNode out = NODES.objectNode();
    for (Map.Entry<String, String> e : new TreeMap<>(flat).entrySet()) {
      if (keepFlat) {
        out.put(e.getKey(), e.getValue());
        continue;
      }
      String[] names = e.getKey().split("\\.");
      ObjectNode at = out;
      for (int i = 0; i < names.length - 1; i++) {
        at = at.has(names[i]) && at.get(names[i]).isObject() ? (ObjectNode) at.get(names[i]) : at.putObject(names[i]);
      }
      at.put(names[names.length - 1], e.getValue());
    }
    return out;
  }

  private static Long number(String text) {
    try {
      return text == null ? null : Long.parseLong(text);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private List<SearchApi.Index> resolve(String expression, Map<String, String> parameters) {
    return IndexExpression.resolve(expression, indices.current(),
        Boolean.parseBoolean(parameters.getOrDefault("ignore_unavailable", "false")),
        Boolean.parseBoolean(parameters.getOrDefault("allow_no_indices", "true")));
  }

  private static void checkCat(Map<String, String> parameters, String path, Set<String> own) {
    for (String name : parameters.keySet()) {
      if (!CatTable.commonParameter(name) && !own.contains(name) && !EXPRESSION.contains(name)) {
        throw unrecognized(path, name);
      }
    }
  }

  /** Refuses a parameter the endpoint at {@code path} does not take, as the node words it. */
  private static void check(Map<String, String> parameters, String path, Set<String> expression, Set<String> own) {
    for (String name : parameters.keySet()) {
      if (!COMMON.contains(name) && !expression.contains(name) && !own.contains(name)) {
        throw unrecognized(path, name);
      }
    }
  }

  private static DslException unrecognized(String path, String name) {
    return DslException.illegalArgument("request [" + path + "] contains unrecognized parameter: [" + name + "]");
  }
}
