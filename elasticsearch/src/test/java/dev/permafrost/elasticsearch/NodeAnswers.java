/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.permafrost.catalog.SearchResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Compares a search's answer with the one a fixture's node recorded: its total and top ids, by {@code seq}, and the
 * hits' {@code _source}s where the node recorded them.
 */
final class NodeAnswers {
  private static final ObjectMapper JSON = new ObjectMapper();

  private NodeAnswers() {}

  /**
   * Asserts that {@code response} (sorted on {@code seq}, fields {@code _id} and {@code _source}) has the node's
   * total and ids in the node's order, that each hit's {@code _source} is its own (its {@code seq} is the sort
   * value) and, if the node recorded its hits' {@code _source}s ({@code sources}), that each is the node's, as JSON.
   */
  static void assertAnswered(JsonNode expected, SearchResponse response, String what) throws IOException {
    assertEquals(expected.path("total").asLong(), response.totalHits().value(), what);
    List<String> ids = new ArrayList<>();
    List<JsonNode> sources = new ArrayList<>();
    for (SearchResponse.Hit hit : response.hits()) {
      ids.add(EngineDocuments.id(hit.document()));
      JsonNode source = JSON.readTree(EngineDocuments.source(hit.document()));
      assertEquals(((Number) hit.sortValues()[0]).longValue(), source.get("seq").asLong(), what);
      sources.add(source);
    }
    List<String> expectedIds = new ArrayList<>();
    expected.path("ids").forEach(id -> expectedIds.add(id.asText()));
    assertEquals(expectedIds, ids, what);
    if (expected.has("sources")) {
      List<JsonNode> expectedSources = new ArrayList<>();
      expected.path("sources").forEach(expectedSources::add);
      assertEquals(expectedSources, sources, what + ": the hits' _source");
    }
  }
}
