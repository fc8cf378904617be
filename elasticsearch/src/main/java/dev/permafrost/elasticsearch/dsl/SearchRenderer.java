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
import java.util.List;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.util.BytesRef;

/**
 * Writes a search's result ({@link SearchResult}) as Elasticsearch's JSON: {@code took}, {@code timed_out},
 * {@code _shards}, {@code hits} with the total as {@code track_total_hits} bounds it, and {@code aggregations}; a
 * count as {@code _count} answers; a refused request as Elasticsearch's error body.
 */
final class SearchRenderer {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final ObjectMapper JSON = new ObjectMapper();

  private SearchRenderer() {}

  /** {@code _search}'s answer; {@code start} is when the request came ({@link System#nanoTime()}). */
  static ObjectNode search(SearchBody body, SearchResult result, long start) {
    if (!result.searched()) {
      return nothingSearched(body, start);
    }
    ObjectNode response = NODES.objectNode();
    response.put("took", (System.nanoTime() - start) / 1_000_000);
    response.put("timed_out", result.timedOut());
    response.set("_shards", shards(result.shards()));
    ObjectNode hitsNode = response.putObject("hits");
    long track = body.trackTotalHits();
    if (track != SearchBody.TOTAL_NOT_TRACKED || result.skippedByPreFilter()) {
      boolean untracked = track == SearchBody.TOTAL_NOT_TRACKED;
      TotalHits total = result.total();
      long value = total.value();
      String relation = total.relation() == TotalHits.Relation.EQUAL_TO ? "eq" : "gte";
      if (untracked || result.skippedByPreFilter()) {
        // the node's pre-filter skipped every shard: the empty answer's total is {0, eq}, untracked or tracked up to
        // 0 (seed 2433609720 #636)
        value = 0;
        relation = "eq";
      } else if (track == 0) {
        // tracked up to 0, no hit is counted: the node's total is {0, gte} whatever matches (a search for hits
        // whose query matched nothing has counted them all: {0, eq}, as Lucene's collector on the node; one that
        // matched some, all before from or search_after's values, has not)
        value = 0;
        relation = body.fetchesHits() && result.total().value() == 0 ? "eq" : "gte";
      } else if (track > 0 && (!body.fetchesHits() ? value >= track : value > track)) {
        // counted up to the bound: a search for hits counts past it, one for aggregations alone stops at it (as
        // Elasticsearch's collectors do), so there reaching it is already a lower bound
        value = track;
        relation = "gte";
      }
      if (body.totalAsInt()) {
        hitsNode.put("total", value);
      } else {
        ObjectNode t = hitsNode.putObject("total");
        t.put("value", value);
        t.put("relation", relation);
      }
    } else if (body.totalAsInt()) {
      hitsNode.put("total", -1); // as the node prints a total it did not track
    }
    ArrayNode hitArray = NODES.arrayNode();
    for (SearchResult.Hit hit : result.hits()) {
      hitArray.add(hit(hit, body));
    }
    float maxScore = result.maxScore(); // the best of all, those before from too, as the node's
    if (result.hits().isEmpty() && result.skippedByPreFilter()) {
      // as the node answers when its pre-filter, run for a sort on a field, skipped every shard
      hitsNode.put("max_score", 0.0f);
    } else if (Float.isNaN(maxScore) || body.sort().byField()) {
      hitsNode.putNull("max_score");
    } else {
      hitsNode.put("max_score", maxScore);
    }
    hitsNode.set("hits", hitArray);
    if (result.aggregations() != null) { // no index: no aggregations at all, as the node answers
      response.set("aggregations", result.aggregations().toJson(body.typedKeys()));
    }
    return response;
  }

  /** The answer to a search of no index: 0 shards, 0 hits, {@code max_score} 0 as the node gives it. */
  private static ObjectNode nothingSearched(SearchBody body, long start) {
    ObjectNode response = NODES.objectNode();
    response.put("took", (System.nanoTime() - start) / 1_000_000);
    response.put("timed_out", false);
    response.set("_shards", shards(new SearchResult.Shards(0)));
    ObjectNode hits = response.putObject("hits");
    if (body.trackTotalHits() != SearchBody.TOTAL_NOT_TRACKED) {
      if (body.totalAsInt()) {
        hits.put("total", 0);
      } else {
        hits.putObject("total").put("value", 0).put("relation", "eq");
      }
    } else if (body.totalAsInt()) {
      hits.put("total", -1);
    }
    hits.put("max_score", 0.0f);
    hits.putArray("hits");
    return response;
  }

  /** {@code _count}'s answer: {@code {"count": n, "_shards": ...}}. */
  static ObjectNode count(SearchResult result) {
    ObjectNode response = NODES.objectNode();
    response.put("count", result.total().value());
    response.set("_shards", shards(result.shards()));
    return response;
  }

  /** One hit as Elasticsearch shows it. */
  private static ObjectNode hit(SearchResult.Hit hit, SearchBody body) {
    SortSpec sort = body.sort();
    ObjectNode node = NODES.objectNode();
    node.put("_index", hit.index());
    if (body.shaping().showsId()) { // not with stored_fields: _none_
      node.put("_id", hit.id());
    }
    // sorted on fields, a hit's score is the node's where the sort has it (then it was computed), else null
    float score = sort.scoreAt() >= 0 && hit.sortValues() != null ? (Float) hit.sortValues()[sort.scoreAt()]
        : !sort.byField() ? hit.score() : Float.NaN;
    if (Float.isNaN(score)) {
      node.putNull("_score");
    } else {
      node.put("_score", score);
    }
    if (hit.source() != null) {
      JsonNode source = parseJson(hit.source(), "the _source of " + hit.shard() + " document " + hit.doc());
      if (!(source instanceof ObjectNode object)) {
        throw DslException.parsing("the request body must be a JSON object, got " + source);
      }
      node.set("_source", body.source().apply(object));
    }
    if (!hit.leftOut().isEmpty()) { // a rebuilt source says what it could not give back, never drops it silently
      hit.leftOut().forEach(node.putObject("_source_rebuilt").putArray("left_out")::add);
    }
    if (!hit.fields().isEmpty()) {
      ObjectNode fields = node.putObject("fields");
      hit.fields().forEach((name, values) -> fields.putArray(name).addAll(values));
    }
    if (!hit.highlight().isEmpty()) {
      ObjectNode highlight = node.putObject("highlight");
      hit.highlight().forEach((name, fragments) -> fragments.forEach(highlight.putArray(name)::add));
    }
    if (sort.lucene() != null && hit.sortValues() != null) {
      ArrayNode values = node.putArray("sort");
      Object[] raw = hit.sortValues();
      for (int i = 0; i < raw.length; i++) {
        sortValue(values, sort.shown(i, raw[i]));
      }
    }
    return node;
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

  /** {@code text} read as JSON; malformed, a 400 naming {@code what}. */
  static JsonNode parseJson(String text, String what) {
    try {
      return JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw DslException.malformedJson(what, e);
    }
  }

  /** The {@code _shards} section. */
  static ObjectNode shards(SearchResult.Shards shards) {
    ObjectNode node = NODES.objectNode();
    node.put("total", shards.total);
    node.put("successful", shards.total - shards.failed.size());
    node.put("skipped", shards.skipped);
    node.put("failed", shards.failed.size());
    if (!shards.failed.isEmpty()) {
      ArrayNode failures = node.putArray("failures");
      shards.failed.forEach((shard, reason) -> {
        ObjectNode f = failures.addObject();
        f.put("index", shard);
        ObjectNode r = f.putObject("reason");
        r.put("type", "exception");
        r.put("reason", reason);
      });
    }
    return node;
  }

  /**
   * Elasticsearch's error body for a refused request: {@code {"error": {"root_cause": [...], "type": ..., "reason":
   * ...}, "status": n}}.
   */
  static ObjectNode error(DslException e) {
    if (e.maxBuckets() >= 0) { // the node's final reduce failed: no shard failed, the cause says why
      ObjectNode error = NODES.objectNode();
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
      ObjectNode body = NODES.objectNode();
      body.set("error", error);
      body.put("status", e.status());
      return body;
    }
    ObjectNode body = error(e.status(), e.type(), e.rootCauseType(), e.getMessage());
    e.metadata().forEach((name, value) -> { // the root cause is the error itself: both say it
      ((ObjectNode) body.get("error")).put(name, value);
      ((ObjectNode) body.at("/error/root_cause/0")).put(name, value);
    });
    return body;
  }

  /** Elasticsearch's error body with this status, type, root cause's type and reason. */
  static ObjectNode error(int status, String type, String rootCauseType, String reason) {
    if (rootCauseType == null) { // failed while merging the shards' answers: no shard failed
      ObjectNode error = NODES.objectNode();
      error.putArray("root_cause");
      error.put("type", type);
      error.put("reason", "");
      error.put("phase", "fetch");
      error.put("grouped", true);
      error.putArray("failed_shards");
      error.putObject("caused_by").put("type", "illegal_argument_exception").put("reason", reason);
      ObjectNode body = NODES.objectNode();
      body.set("error", error);
      body.put("status", status);
      return body;
    }
    ObjectNode cause = NODES.objectNode();
    cause.put("type", rootCauseType);
    cause.put("reason", reason);
    ObjectNode error = NODES.objectNode();
    error.putArray("root_cause").add(cause);
    error.put("type", type);
    boolean everyShard = type.equals("search_phase_execution_exception") && !rootCauseType.equals(type);
    error.put("reason", everyShard ? "all shards failed" : reason); // the shards' reason is the root cause's
    if (everyShard) {
      error.put("phase", "query");
      error.put("grouped", true);
      error.putObject("caused_by").put("type", rootCauseType).put("reason", reason);
    }
    ObjectNode body = NODES.objectNode();
    body.set("error", error);
    body.put("status", status);
    return body;
  }
}
