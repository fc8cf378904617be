/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.es;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.permafrost.examples.service.SearchServiceApplication;
import dev.permafrost.fixture.DslDataset;
import dev.permafrost.fixture.EngineFixture;
import dev.permafrost.fixture.LiveEngineNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Scroll and point in time against a real Elasticsearch 9.3.3 node: 12,000 documents in three indices of five shards
 * (written through the node, snapshotted, the service mounting that snapshot), read to the end both ways on both
 * sides. Sorted on a unique field, the ids and sort values are the node's, page by page; in {@code _doc} order (as
 * {@code helpers.scan} asks) every document once, the same set; on a field with ties, the same sequence of values and
 * the same set ({@code _shard_doc} numbers shards in an order of each side's own). Closing, lapsed and garbage ids are
 * answered with the node's statuses, error types and bodies, as {@code application/json}.
 */
class ScrollAndPointInTimeDifferentialTest {
  private static final JsonMapper MAPPER = JsonMapper.builder().build();
  private static final String SNAPSHOT = "snap-scroll";
  private static final int DOCS = 12_000;
  private static LiveEngineNode node;
  private static ConfigurableApplicationContext service;
  private static URI serviceUri;
  private static HttpClient http;

  @BeforeAll
  static void start() throws Exception {
    http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    node = LiveEngineNode.start(EngineFixture.ELASTICSEARCH_93, Path.of("target", "live-node-scroll"));
    String mapping = "{\"properties\": {\"seq\": {\"type\": \"long\"}, \"v\": {\"type\": \"integer\"},"
        + " \"k\": {\"type\": \"keyword\"}}}";
    int[][] layout = {{2}, {1}, {2}}; // shards of scroll-a, scroll-b, scroll-c
    for (int i = 0; i < layout.length; i++) {
      ok(send(node.uri(), "PUT", "/scroll-" + (char) ('a' + i), "{\"settings\": {\"number_of_shards\": "
          + layout[i][0] + ", \"number_of_replicas\": 0}, \"mappings\": " + mapping + "}"));
    }
    Random random = new Random(57);
    StringBuilder bulk = new StringBuilder();
    for (int seq = 0; seq < DOCS; seq++) {
      String index = "scroll-" + (char) ('a' + seq % 3);
      bulk.append("{\"index\": {\"_index\": \"").append(index).append("\", \"_id\": \"s").append(seq).append("\"}}\n")
          .append("{\"seq\": ").append(seq).append(", \"v\": ").append(random.nextInt(50)).append(", \"k\": \"")
          .append((char) ('a' + random.nextInt(6))).append("\"}\n");
      if (seq % 3000 == 2999) {
        ok(send(node.uri(), "POST", "/_bulk", bulk.toString()));
        bulk.setLength(0);
        ok(send(node.uri(), "POST", "/scroll-*/_flush", null)); // a few segments per shard
      }
    }
    ok(send(node.uri(), "POST", "/scroll-*/_refresh", null));
    ok(send(node.uri(), "PUT", "/_snapshot/" + DslDataset.REPOSITORY + "/" + SNAPSHOT
        + "?wait_for_completion=true", "{\"indices\": \"scroll-*\", \"include_global_state\": false}"));
    Path home = Files.createTempDirectory("permafrost-scroll");
    service = new SpringApplicationBuilder(SearchServiceApplication.class).run("--server.port=0",
        "--permafrost.home=" + home, "--permafrost.cache.size=64mb", "--permafrost.sample.enabled=false",
        "--permafrost.engine-repository.uri=" + node.repository().toUri(),
        "--permafrost.engine-repository.snapshot=" + SNAPSHOT);
    serviceUri = URI.create("http://127.0.0.1:" + ((WebServerApplicationContext) service).getWebServer().getPort());
  }

  @AfterAll
  static void stop() throws Exception {
    if (service != null) {
      service.close();
    }
    if (node != null) {
      node.close();
    }
  }

  /** Every page of a scroll of {@code body} over {@code scroll-*}: the hits, in order. */
  private static List<JsonNode> scroll(URI side, String body) throws Exception {
    HttpResponse<String> first = send(side, "POST", "/scroll-*/_search?scroll=1m", body);
    JsonNode page = ok(first);
    assertEquals(DOCS, page.at("/hits/total/value").asInt(), side + ": " + page.at("/hits/total"));
    List<JsonNode> hits = new ArrayList<>();
    String id = page.get("_scroll_id").asText();
    while (!page.at("/hits/hits").isEmpty()) {
      page.at("/hits/hits").forEach(hits::add);
      // as the Python client sends it: the id in the body, the keep-alive too
      page = ok(send(side, "POST", "/_search/scroll", "{\"scroll_id\": \"" + id + "\", \"scroll\": \"1m\"}"));
      id = page.get("_scroll_id").asText();
    }
    HttpResponse<String> cleared = send(side, "DELETE", "/_search/scroll", "{\"scroll_id\": [\"" + id + "\"]}");
    assertEquals(200, cleared.statusCode(), cleared.body());
    assertEquals("{\"succeeded\":true,\"num_freed\":5}", cleared.body(), side + " frees the scroll's five shards");
    return hits;
  }

  /** A point in time over {@code scroll-*} read with {@code search_after} to the end. */
  private static List<JsonNode> pointInTime(URI side, String sort) throws Exception {
    HttpResponse<String> opened = send(side, "POST", "/scroll-*/_pit?keep_alive=1m", null);
    JsonNode pit = ok(opened);
    assertTrue(opened.headers().firstValue("content-type").orElse("").startsWith("application/json"),
        side + ": " + opened.headers().firstValue("content-type"));
    assertEquals("{\"total\":5,\"successful\":5,\"skipped\":0,\"failed\":0}", pit.get("_shards").toString());
    String id = pit.get("id").asText();
    List<JsonNode> hits = new ArrayList<>();
    JsonNode after = null;
    while (true) {
      JsonNode page = ok(send(side, "POST", "/_search", "{\"size\": 1000, \"track_total_hits\": true,"
          + " \"_source\": false, \"pit\": {\"id\": \"" + id + "\", \"keep_alive\": \"1m\"}, \"sort\": " + sort
          + (after == null ? "" : ", \"search_after\": " + after) + "}"));
      assertEquals(DOCS, page.at("/hits/total/value").asInt());
      JsonNode found = page.at("/hits/hits");
      if (found.isEmpty()) {
        break;
      }
      found.forEach(hits::add);
      after = found.get(found.size() - 1).get("sort");
      id = page.get("pit_id").asText();
    }
    HttpResponse<String> closed = send(side, "DELETE", "/_pit", "{\"id\": \"" + id + "\"}");
    assertEquals("{\"succeeded\":true,\"num_freed\":5}", closed.body(), side.toString());
    HttpResponse<String> again = send(side, "DELETE", "/_pit", "{\"id\": \"" + id + "\"}");
    assertEquals(404, again.statusCode());
    assertEquals("{\"succeeded\":false,\"num_freed\":0}", again.body(), side.toString());
    return hits;
  }

  private static List<String> ids(List<JsonNode> hits) {
    return hits.stream().map(h -> h.get("_index").asText() + "/" + h.get("_id").asText()).toList();
  }

  /** Each hit's sort values but the last {@code drop} (the tie-breaker's, which numbers shards its own way). */
  private static List<String> sortValues(List<JsonNode> hits, int drop) {
    return hits.stream().map(h -> {
      List<String> values = new ArrayList<>();
      for (int i = 0; i < h.get("sort").size() - drop; i++) {
        values.add(h.get("sort").get(i).toString());
      }
      return String.join(",", values);
    }).toList();
  }

  @Test
  void aScrollSortedOnAUniqueFieldIsTheNodes() throws Exception {
    String body = "{\"size\": 1000, \"sort\": [{\"seq\": \"desc\"}], \"_source\": [\"v\"]}";
    List<JsonNode> expected = scroll(node.uri(), body);
    List<JsonNode> actual = scroll(serviceUri, body);
    assertEquals(DOCS, expected.size());
    assertEquals(ids(expected), ids(actual));
    assertEquals(sortValues(expected, 0), sortValues(actual, 0));
    for (int i = 0; i < expected.size(); i += 997) {
      assertEquals(expected.get(i).get("_source"), actual.get(i).get("_source"), "the _source of hit " + i);
    }
  }

  @Test
  void aScrollInDocumentOrderReadsEveryDocumentOnce() throws Exception {
    String body = "{\"size\": 1000, \"sort\": [\"_doc\"], \"_source\": false}";
    List<String> expected = ids(scroll(node.uri(), body));
    List<String> actual = ids(scroll(serviceUri, body));
    assertEquals(DOCS, actual.size());
    Set<String> once = new HashSet<>(actual);
    assertEquals(DOCS, once.size(), "no document twice");
    assertEquals(new HashSet<>(expected), once);
  }

  @Test
  void aPointInTimeWithSearchAfterIsTheNodes() throws Exception {
    List<JsonNode> expected = pointInTime(node.uri(), "[{\"seq\": \"asc\"}]");
    List<JsonNode> actual = pointInTime(serviceUri, "[{\"seq\": \"asc\"}]");
    assertEquals(DOCS, actual.size());
    assertEquals(ids(expected), ids(actual));
    assertEquals(sortValues(expected, 1), sortValues(actual, 1));
    assertEquals(2, actual.get(0).get("sort").size(), "the implicit _shard_doc shown, as the node's");
  }

  @Test
  void aPointInTimeOverTiesReadsEveryDocumentOnceInTheNodesOrderOfValues() throws Exception {
    String sort = "[{\"v\": \"desc\"}, {\"k\": \"asc\"}, {\"_shard_doc\": \"desc\"}]";
    List<JsonNode> expected = pointInTime(node.uri(), sort);
    List<JsonNode> actual = pointInTime(serviceUri, sort);
    assertEquals(sortValues(expected, 1), sortValues(actual, 1));
    assertEquals(new HashSet<>(ids(expected)), new HashSet<>(ids(actual)));
    assertEquals(DOCS, new HashSet<>(ids(actual)).size());
  }

  /** As the Python client's {@code Search.iterate()} and others page a point in time: on {@code _shard_doc} alone. */
  @Test
  void aPointInTimeSortedOnShardDocAloneReadsEveryDocumentOnce() throws Exception {
    List<JsonNode> expected = pointInTime(node.uri(), "[{\"_shard_doc\": \"asc\"}]");
    List<JsonNode> actual = pointInTime(serviceUri, "[{\"_shard_doc\": \"asc\"}]");
    assertEquals(DOCS, new HashSet<>(ids(actual)).size());
    assertEquals(new HashSet<>(ids(expected)), new HashSet<>(ids(actual)));
    assertEquals(1, expected.get(0).get("sort").size());
    assertEquals(1, actual.get(0).get("sort").size());
  }

  @Test
  void idsNotOpenAreRefusedAsTheNodeRefusesThem() throws Exception {
    for (URI side : List.of(node.uri(), serviceUri)) {
      HttpResponse<String> garbage = send(side, "POST", "/_search/scroll", "{\"scroll_id\": \"garbage\"}");
      assertEquals(400, garbage.statusCode(), side + garbage.body());
      assertEquals("illegal_argument_exception", MAPPER.readTree(garbage.body()).at("/error/type").asText());
      assertTrue(MAPPER.readTree(garbage.body()).at("/error/reason").asText().startsWith("Cannot parse scroll id"));
      String id = ok(send(side, "POST", "/scroll-a/_search?scroll=1m", "{\"size\": 1}")).get("_scroll_id").asText();
      ok(send(side, "DELETE", "/_search/scroll/" + id, null));
      HttpResponse<String> cleared = send(side, "GET", "/_search/scroll?scroll_id=" + id + "&scroll=1m", null);
      assertEquals(404, cleared.statusCode(), side + cleared.body());
      JsonNode error = MAPPER.readTree(cleared.body());
      assertEquals("search_phase_execution_exception", error.at("/error/type").asText(), side + cleared.body());
      assertEquals("search_context_missing_exception", error.at("/error/root_cause/0/type").asText());
      assertEquals(404, error.get("status").asInt());
      HttpResponse<String> unknown = send(side, "DELETE", "/_search/scroll", "{\"scroll_id\": \"" + id + "\"}");
      assertEquals(404, unknown.statusCode());
      assertEquals("{\"succeeded\":true,\"num_freed\":0}", unknown.body());
      HttpResponse<String> all = send(side, "DELETE", "/_search/scroll/_all", null);
      assertEquals(200, all.statusCode());
      HttpResponse<String> pit = send(side, "POST", "/_search", "{\"pit\": {\"id\": \"garbage\"}}");
      assertEquals(400, pit.statusCode(), side + pit.body());
      assertEquals("illegal_argument_exception", MAPPER.readTree(pit.body()).at("/error/type").asText());
      HttpResponse<String> noKeepAlive = send(side, "POST", "/scroll-a/_pit", null);
      assertEquals(400, noKeepAlive.statusCode());
      assertEquals("action_request_validation_exception", MAPPER.readTree(noKeepAlive.body()).at("/error/type")
          .asText());
      HttpResponse<String> from = send(side, "POST", "/scroll-a/_search?scroll=1m", "{\"from\": 3}");
      assertEquals(MAPPER.readTree(from.body()).at("/error/reason").asText(), "Validation Failed: 1: using [from] is"
          + " not allowed in a scroll context;");
      String pitId = ok(send(side, "POST", "/scroll-a/_pit?keep_alive=1m", null)).get("id").asText();
      HttpResponse<String> withIndex = send(side, "POST", "/scroll-a/_search", "{\"pit\": {\"id\": \"" + pitId
          + "\"}}");
      assertEquals(400, withIndex.statusCode());
      assertFalse(withIndex.headers().firstValue("content-type").orElse("").contains("problem"));
      ok(send(side, "DELETE", "/_pit", "{\"id\": \"" + pitId + "\"}"));
    }
  }

  private static JsonNode ok(HttpResponse<String> response) throws Exception {
    assertEquals(200, response.statusCode(), () -> response.uri() + ": " + response.body());
    return MAPPER.readTree(response.body());
  }

  private static HttpResponse<String> send(URI base, String method, String path, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofMinutes(2))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("Content-Type", path.contains("_bulk") ? "application/x-ndjson" : "application/json");
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
