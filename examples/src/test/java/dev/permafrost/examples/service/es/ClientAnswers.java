/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.es;

import static org.junit.jupiter.api.Assertions.fail;

import co.elastic.clients.json.JsonpSerializable;
import co.elastic.clients.json.JsonpUtils;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;

/**
 * Compares what an official client returned from a real node with what it returned from the service, whole: every
 * member, except the few that must differ ({@link #NORMALIZED}, each with its reason: their presence is compared,
 * their value not). Numbers that are not both integers compare within a relative 1e-6 (scores: the service sums
 * them in another order). The Python suite ({@code src/test/python/test_python_client.py}) keeps the same rules.
 */
final class ClientAnswers {
  /** The relative difference allowed between two numbers that are not both integers. */
  static final double RELATIVE = 1e-6;
  /** The members whose values must differ between a node and the service, and why. */
  static final Map<String, String> NORMALIZED = Map.of(
      "took", "wall time of the search",
      "pit_id", "a point in time's id is opaque and names what its server keeps",
      "_scroll_id", "a scroll's id is opaque and names what its server keeps",
      "cluster_name", "the node's cluster has a name of its own; the service is no cluster");

  private static final JsonMapper MAPPER = JsonMapper.builder().build();
  private static final JacksonJsonpMapper CLIENT_MAPPER = new JacksonJsonpMapper();

  private ClientAnswers() {}

  /** What the Java client parsed, written back as the JSON it writes of it. */
  static JsonNode json(JsonpSerializable parsed) {
    return MAPPER.readTree(JsonpUtils.toJsonString(parsed, CLIENT_MAPPER));
  }

  /** Any value as JSON (a list of parsed records, a map of results). */
  static JsonNode json(Object value) {
    return MAPPER.valueToTree(value);
  }

  /** JSON text as a tree. */
  static JsonNode parse(String text) {
    return MAPPER.readTree(text);
  }

  /** A new, empty JSON array. */
  static ArrayNode array() {
    return MAPPER.createArrayNode();
  }

  /** Fails, listing every path where {@code actual} (the service's) differs from {@code expected} (the node's). */
  static void assertSame(String what, JsonNode expected, JsonNode actual) {
    List<String> found = new ArrayList<>();
    differences(expected, actual, "$", found);
    if (!found.isEmpty()) {
      fail(what + ": the service's answer differs from the node's at " + found.size() + " places:\n"
          + String.join("\n", found.subList(0, Math.min(40, found.size()))));
    }
  }

  private static void differences(JsonNode expected, JsonNode actual, String path, List<String> out) {
    if (expected.isObject() && actual.isObject()) {
      TreeSet<String> keys = new TreeSet<>(expected.propertyNames());
      keys.addAll(actual.propertyNames());
      for (String key : keys) {
        String where = path + "." + key;
        if (!expected.has(key) || !actual.has(key)) {
          out.add(where + ": the node has " + (expected.has(key) ? expected.get(key) : "(nothing)") + ", the service "
              + (actual.has(key) ? actual.get(key) : "(nothing)"));
        } else if (!NORMALIZED.containsKey(key)) {
          differences(expected.get(key), actual.get(key), where, out);
        }
      }
    } else if (expected.isArray() && actual.isArray()) {
      for (int i = 0; i < Math.min(expected.size(), actual.size()); i++) {
        differences(expected.get(i), actual.get(i), path + "[" + i + "]", out);
      }
      if (expected.size() != actual.size()) {
        out.add(path + ": the node has " + expected.size() + " elements, the service " + actual.size());
      }
    } else if (expected.isNumber() && actual.isNumber() && !(expected.isIntegralNumber() && actual.isIntegralNumber())) {
      double e = expected.doubleValue();
      double a = actual.doubleValue();
      if (e != a && Math.abs(e - a) > RELATIVE * Math.max(Math.abs(e), Math.abs(a))) {
        out.add(path + ": the node has " + expected + ", the service " + actual);
      }
    } else if (!expected.equals(actual)) {
      out.add(path + ": the node has " + expected + ", the service " + actual);
    }
  }
}
