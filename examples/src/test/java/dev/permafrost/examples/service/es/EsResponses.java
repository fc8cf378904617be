/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.es;

import java.math.BigDecimal;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import org.opentest4j.AssertionFailedError;
import tools.jackson.databind.JsonNode;

/**
 * Compares two answers to one {@code _search} request, a live node's and the service's: what a client reads of them,
 * not how long they took or how many shards answered. Requests are sorted on {@code seq} last, so the hits' order is
 * total and scores do not matter.
 */
public final class EsResponses {
  /** The relative difference allowed between two metric values that are not both integers. */
  public static final double RELATIVE = 1e-9;

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
    if (node.has("error") || service.has("error")) {
      same(label, "$.status", node.get("status"), service.get("status"));
      same(label, "$.error.type", node.path("error").get("type"), service.path("error").get("type"));
      return;
    }
    JsonNode nodeHits = node.get("hits");
    JsonNode serviceHits = service.get("hits");
    if (nodeHits == null || serviceHits == null) {
      fail(label, "$.hits", nodeHits, serviceHits);
    }
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
    } else {
      same(label, "$.hits.total.value", nodeTotal.get("value"), serviceTotal.get("value"));
      same(label, "$.hits.total.relation", nodeTotal.get("relation"), serviceTotal.get("relation"));
    }
    JsonNode a = nodeHits.path("hits");
    JsonNode b = serviceHits.path("hits");
    if (!a.isArray() || !b.isArray()) {
      fail(label, "$.hits.hits", a, b);
    }
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

  /** Fails unless {@code a} and {@code b} are the same JSON, numbers compared by value ({@link #RELATIVE}). */
  private static void same(String label, String path, JsonNode a, JsonNode b) {
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
      if (!sameNumber(a, b)) {
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
        same(label, path + "." + e.getKey(), e.getValue(), b.get(e.getKey()));
      }
    } else if (a.isArray() && b.isArray()) {
      for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
        same(label, path + "[" + i + "]", a.get(i), b.get(i));
      }
      if (a.size() != b.size()) {
        fail(label, path + ".length", a.size(), b.size());
      }
    } else if (!Objects.equals(a, b)) {
      fail(label, path, a, b);
    }
  }

  private static boolean sameNumber(JsonNode a, JsonNode b) {
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
    return Math.abs(u - v) <= RELATIVE * Math.max(Math.abs(u), Math.abs(v));
  }

  private static void fail(String label, String path, Object node, Object service) {
    throw new AssertionFailedError(label + ": at " + path + " the node has " + node + " but the service "
        + service, node, service);
  }
}
