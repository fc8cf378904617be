/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.es;

import java.math.BigDecimal;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import org.opentest4j.AssertionFailedError;
import tools.jackson.databind.JsonNode;

/**
 * Compares two answers to one {@code _search} request, a live node's and the service's: what a client reads of them,
 * not how long they took or how many shards answered. {@link #assertSameAnswer} leaves scores out (for requests
 * sorted on {@code seq} last, whose hits' order is total); {@link #assertSameScoredAnswer} compares them.
 */
public final class EsResponses {
  /** The relative difference allowed between two metric values that are not both integers. */
  public static final double RELATIVE = 1e-9;
  /** The relative difference allowed between two scores. */
  public static final double SCORE_RELATIVE = 1e-6;

  private EsResponses() {}

  /**
   * Fails, naming {@code label}, the JSON path and both values, unless {@code service} answers as {@code node} does:
   * the same {@code hits.total} (value and relation, or neither present), the same hits ({@code _index},
   * {@code _id}, {@code sort} and {@code _source}) in the same order, and the same {@code aggregations}, compared
   * member by member (bucket keys, {@code key_as_string}, {@code doc_count}, {@code doc_count_error_upper_bound},
   * {@code sum_other_doc_count}, sub-aggregations, metric values; numbers equal, or within {@link #RELATIVE} when
   * one is not an integer). Ignores {@code took}, {@code timed_out}, {@code _shards}, {@code _score} and
   * {@code max_score}. When both are errors, compares their {@code status} and {@code error.type}.
   */
  public static void assertSameAnswer(String label, JsonNode node, JsonNode service) {
    if (sameError(label, node, service)) {
      return;
    }
    JsonNode nodeHits = node.get("hits");
    JsonNode serviceHits = service.get("hits");
    sameTotal(label, nodeHits, serviceHits);
    JsonNode a = nodeHits.path("hits");
    JsonNode b = serviceHits.path("hits");
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      String path = "$.hits.hits[" + i + "]";
      same(label, path + "._index", a.get(i).get("_index"), b.get(i).get("_index"));
      same(label, path + "._id", a.get(i).get("_id"), b.get(i).get("_id"));
      same(label, path + ".sort", a.get(i).get("sort"), b.get(i).get("sort"));
      same(label, path + "._source", a.get(i).get("_source"), b.get(i).get("_source"));
    }
    if (a.size() != b.size()) {
      fail(label, "$.hits.hits.length", a.size(), b.size());
    }
    same(label, "$.aggregations", node.get("aggregations"), service.get("aggregations"));
  }

  /**
   * As {@link #assertSameAnswer}, and the scores too: every hit's {@code _score} and {@code max_score} the same
   * (both null, or within {@link #SCORE_RELATIVE}; a hit's {@code sort} values within it as well). When the hits
   * come by score alone ({@code rankedByScore}), documents of equal scores may come in another order (as
   * docs/elasticsearch-api.md says): the scores must then be the same position by position, and each run of equal
   * scores must hold the same documents with the same {@code _source}, except a run at the page's start after a
   * {@code from} or at the end of a full page of {@code size}, which may have been cut at another document.
   */
  public static void assertSameScoredAnswer(String label, JsonNode node, JsonNode service, boolean rankedByScore,
      int from, int size) {
    if (sameError(label, node, service)) {
      return;
    }
    JsonNode nodeHits = node.get("hits");
    JsonNode serviceHits = service.get("hits");
    sameTotal(label, nodeHits, serviceHits);
    sameScore(label, "$.hits.max_score", nodeHits.get("max_score"), serviceHits.get("max_score"));
    JsonNode a = nodeHits.path("hits");
    JsonNode b = serviceHits.path("hits");
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      String path = "$.hits.hits[" + i + "]";
      sameScore(label, path + "._score", a.get(i).get("_score"), b.get(i).get("_score"));
      if (!rankedByScore) {
        same(label, path + "._index", a.get(i).get("_index"), b.get(i).get("_index"));
        same(label, path + "._id", a.get(i).get("_id"), b.get(i).get("_id"));
        same(label, path + ".sort", a.get(i).get("sort"), b.get(i).get("sort"), SCORE_RELATIVE);
        same(label, path + "._source", a.get(i).get("_source"), b.get(i).get("_source"));
      }
    }
    if (a.size() != b.size()) {
      fail(label, "$.hits.hits.length", a.size(), b.size());
    }
    if (rankedByScore) {
      for (int start = 0, end; start < a.size(); start = end) {
        double score = a.get(start).path("_score").asDouble(Double.NaN);
        end = start + 1;
        while (end < a.size() && closeScores(score, a.get(end).path("_score").asDouble(Double.NaN))) {
          end++;
        }
        boolean cut = (start == 0 && from > 0) || (end == a.size() && a.size() == size);
        if (!cut) {
          sameDocuments(label, "$.hits.hits[" + start + ".." + (end - 1) + "] (score " + score + ")",
              a, b, start, end);
        }
      }
    }
    same(label, "$.aggregations", node.get("aggregations"), service.get("aggregations"));
  }

  /** Compares two errors (status and type) and returns true, or returns false when neither is one. */
  private static boolean sameError(String label, JsonNode node, JsonNode service) {
    if (node.has("error") || service.has("error")) {
      same(label, "$.status", node.get("status"), service.get("status"));
      same(label, "$.error.type", node.path("error").get("type"), service.path("error").get("type"));
      return true;
    }
    if (node.get("hits") == null || service.get("hits") == null) {
      fail(label, "$.hits", node.get("hits"), service.get("hits"));
    }
    return false;
  }

  private static void sameTotal(String label, JsonNode nodeHits, JsonNode serviceHits) {
    JsonNode nodeTotal = nodeHits.get("total");
    JsonNode serviceTotal = serviceHits.get("total");
    if (nodeTotal == null || serviceTotal == null) {
      // not tracked: a node whose pre-filter skipped every shard reports an exact 0 all the same; no hits either way
      JsonNode present = nodeTotal == null ? serviceTotal : nodeTotal;
      boolean noneFound = present != null && nodeHits.path("hits").isEmpty() && serviceHits.path("hits").isEmpty()
          && present.path("value").asLong(-1) == 0;
      if (nodeTotal != serviceTotal && !noneFound) {
        fail(label, "$.hits.total", nodeTotal, serviceTotal);
      }
    } else if (nodeTotal.isNumber() || serviceTotal.isNumber()) {
      same(label, "$.hits.total", nodeTotal, serviceTotal); // rest_total_hits_as_int
    } else {
      same(label, "$.hits.total.value", nodeTotal.get("value"), serviceTotal.get("value"));
      same(label, "$.hits.total.relation", nodeTotal.get("relation"), serviceTotal.get("relation"));
    }
    if (!nodeHits.path("hits").isArray() || !serviceHits.path("hits").isArray()) {
      fail(label, "$.hits.hits", nodeHits.path("hits"), serviceHits.path("hits"));
    }
  }

  /** Both null (or absent), or two numbers within {@link #SCORE_RELATIVE}. */
  private static void sameScore(String label, String path, JsonNode a, JsonNode b) {
    boolean noneA = a == null || a.isNull() || a.isMissingNode();
    boolean noneB = b == null || b.isNull() || b.isMissingNode();
    if (noneA != noneB || (!noneA && !(a.isNumber() && b.isNumber()
        && closeScores(a.doubleValue(), b.doubleValue())))) {
      fail(label, path, a, b);
    }
  }

  private static boolean closeScores(double a, double b) {
    return a == b || Math.abs(a - b) <= SCORE_RELATIVE * Math.max(Math.abs(a), Math.abs(b));
  }

  /** The hits {@code start} to {@code end} of both hold the same documents (index and id), with the same source. */
  private static void sameDocuments(String label, String path, JsonNode a, JsonNode b, int start, int end) {
    Map<String, JsonNode> expected = new TreeMap<>();
    Map<String, JsonNode> actual = new TreeMap<>();
    for (int i = start; i < end; i++) {
      expected.put(a.get(i).path("_index").asString("") + "/" + a.get(i).path("_id").asString(""), a.get(i));
      actual.put(b.get(i).path("_index").asString("") + "/" + b.get(i).path("_id").asString(""), b.get(i));
    }
    if (!expected.keySet().equals(actual.keySet())) {
      fail(label, path + " documents", expected.keySet(), actual.keySet());
    }
    for (Map.Entry<String, JsonNode> e : expected.entrySet()) {
      same(label, path + " " + e.getKey() + "._source", e.getValue().get("_source"),
          actual.get(e.getKey()).get("_source"));
    }
  }

  /** Fails unless {@code a} and {@code b} are the same JSON, numbers compared by value ({@link #RELATIVE}). */
  private static void same(String label, String path, JsonNode a, JsonNode b) {
    same(label, path, a, b, RELATIVE);
  }

  private static void same(String label, String path, JsonNode a, JsonNode b, double relative) {
    if (a == null || b == null || a.isMissingNode() || b.isMissingNode()) {
      boolean absentA = a == null || a.isMissingNode();
      boolean absentB = b == null || b.isMissingNode();
      if (absentA != absentB) {
        fail(label, path, a, b);
      }
      return;
    }
    if (path.endsWith(".doc_count_error_upper_bound") && a.isNumber() && a.asLong() == -1 && b.isNumber()
        && b.asLong() == 0) {
      return; // the node cannot bound its error (terms by ascending count); the service counts exactly
    }
    if (a.isNumber() && b.isNumber()) {
      if (!sameNumber(a, b, relative)) {
        fail(label, path, a, b);
      }
    } else if (a.isObject() && b.isObject()) {
      TreeSet<String> names = new TreeSet<>(a.propertyNames());
      TreeSet<String> others = new TreeSet<>(b.propertyNames());
      if (!names.equals(others)) {
        TreeSet<String> onlyA = new TreeSet<>(names);
        onlyA.removeAll(others);
        TreeSet<String> onlyB = new TreeSet<>(others);
        onlyB.removeAll(names);
        fail(label, path + " (members only in the node's: " + onlyA + ", only in the service's: " + onlyB + ")",
            a, b);
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = a.properties().iterator(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        same(label, path + "." + e.getKey(), e.getValue(), b.get(e.getKey()), relative);
      }
    } else if (a.isArray() && b.isArray()) {
      for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
        same(label, path + "[" + i + "]", a.get(i), b.get(i), relative);
      }
      if (a.size() != b.size()) {
        fail(label, path + ".length", a.size(), b.size());
      }
    } else if (!Objects.equals(a, b)) {
      fail(label, path, a, b);
    }
  }

  private static boolean sameNumber(JsonNode a, JsonNode b, double relative) {
    if (a.isIntegralNumber() && b.isIntegralNumber()) {
      return a.bigIntegerValue().equals(b.bigIntegerValue());
    }
    BigDecimal x = a.decimalValue();
    BigDecimal y = b.decimalValue();
    if (x.compareTo(y) == 0) {
      return true;
    }
    double u = a.doubleValue();
    double v = b.doubleValue();
    return Math.abs(u - v) <= relative * Math.max(Math.abs(u), Math.abs(v));
  }

  private static void fail(String label, String path, Object node, Object service) {
    throw new AssertionFailedError(label + ": at " + path + " the node has " + node + " but the service "
        + service, node, service);
  }
}
