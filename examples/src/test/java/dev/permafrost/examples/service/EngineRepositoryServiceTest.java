/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.fixture.EngineFixture;
import dev.permafrost.opensearch.fixture.OpenSearchFixture;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The service mounts a snapshot repository written by a real OpenSearch node (permafrost.engine-repository.*) and
 * answers the node's queries over its shards as the node did: the same totals and the same top ids, sorted on a
 * field of the mapping; hits carry the decoded {@code _id} and {@code _source}.
 */
class EngineRepositoryServiceTest {
  @TempDir Path home;

  @Test
  void answersTheNodesQueriesAsTheNodeDid() throws Exception {
    Path fixture = OpenSearchFixture.ensure();
    JsonMapper json = JsonMapper.builder().build();
    JsonNode answers = json.readTree(fixture.resolve("answers.json").toFile());
    JsonNode queries = json.readTree(fixture.resolve("queries.json").toFile());
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SearchServiceApplication.class).run(
        "--server.port=0", "--permafrost.home=" + home, "--permafrost.cache.size=32mb", "--permafrost.sample.enabled=false",
        "--permafrost.engine-repository.uri=" + fixture.resolve("repo").toUri(),
        "--permafrost.engine-repository.snapshot=snap-1")) {
      Http http = new Http(((WebServerApplicationContext) context).getWebServer().getPort());
      assertEquals(List.of("logs-a.0", "logs-a.1", "logs-b.0", "logs-b.1"), mounted(http));
      for (JsonNode q : queries) {
        String pattern = String.join(",", q.get("indices").asString().replace(",", ".*,") + ".*");
        JsonNode result = http.get("/indices/" + pattern + "/search?size=10&sort=seq:desc&q="
            + URLEncoder.encode(q.get("query_string").asString(), StandardCharsets.UTF_8)).ok();
        JsonNode expected = answers.path("snapshots").path("snap-1").path(q.get("id").asString());
        assertAnsweredAsTheNode(expected, result, q.toString());
      }
      JsonNode nested = http.get("/indices/logs-a.*/search?q=" + URLEncoder.encode("user.name:ann", StandardCharsets.UTF_8))
          .problem(400);
      assertTrue(nested.get("detail").asString().contains("nested"), nested.toString());
    }
  }

  /**
   * An Elasticsearch 9.1 snapshot (its own {@code ES87BloomFilter} and zstd {@code best_compression} codec): the
   * standard and best_compression indices are served as the node answered, and so are the logsdb and time_series
   * indices ({@code ES819TSDB} doc values), newest first; the vector index, which cannot be read, is left out and the
   * service starts.
   */
  @Test
  void servesAnElasticsearchSnapshotLeavingOutWhatCannotBeRead() throws Exception {
    Path fixture = EngineFixture.ELASTICSEARCH_9.ensure();
    JsonMapper json = JsonMapper.builder().build();
    JsonNode answers = json.readTree(fixture.resolve("answers.json").toFile());
    JsonNode queries = json.readTree(fixture.resolve("queries.json").toFile());
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SearchServiceApplication.class).run(
        "--server.port=0", "--permafrost.home=" + home, "--permafrost.cache.size=32mb", "--permafrost.sample.enabled=false",
        "--permafrost.engine-repository.uri=" + fixture.resolve("repo").toUri(),
        "--permafrost.engine-repository.snapshot=snap-2")) {
      Http http = new Http(((WebServerApplicationContext) context).getWebServer().getPort());
      assertEquals(List.of("logs-a.0", "logs-a.1", "logs-b.0", "logs-b.1", "logs-best.0", "logs-db.0", "logs-host.0",
          "logs-merged.0", "metrics-ts.0"), mounted(http));
      for (JsonNode q : queries) {
        JsonNode result = http.get("/indices/logs-best.*/search?size=10&sort=seq:desc&q="
            + URLEncoder.encode(q.get("query_string").asString(), StandardCharsets.UTF_8)).ok();
        JsonNode expected = answers.path("variants").path("logs-best").path(q.get("id").asString());
        assertAnsweredAsTheNode(expected, result, q.toString());
      }
      int logsdb = 0;
      for (String index : List.of("logs-db", "metrics-ts")) {
        for (JsonNode search : answers.path("tsdb").path("snap-2").path(index).path("searches")) {
          if (!search.path("sort_id").asString().equals("timestamp") || logsdb++ % 3 != 0) {
            continue;
          }
          JsonNode result = http.get("/indices/" + index + ".*/search?size=10&sort=" + URLEncoder.encode("@timestamp:desc",
              StandardCharsets.UTF_8) + "&q=" + URLEncoder.encode(search.path("query_string").asString(),
              StandardCharsets.UTF_8)).ok();
          List<String> ids = new ArrayList<>();
          List<JsonNode> sources = new ArrayList<>();
          for (JsonNode hit : result.get("hits")) {
            ids.add(hit.path("fields").path("_id").asString());
            sources.add(hit.path("fields").path("_source"));
          }
          List<String> expectedIds = new ArrayList<>();
          search.path("ids").forEach(id -> expectedIds.add(id.asString()));
          List<JsonNode> expectedSources = new ArrayList<>();
          search.path("sources").forEach(expectedSources::add);
          assertEquals(expectedIds, ids, index + " " + search.path("query_string"));
          assertEquals(expectedSources, sources, index + " " + search.path("query_string") + ": _source");
        }
      }
      assertTrue(logsdb >= 30, "logsdb and time_series searches: " + logsdb);
      // the histogram over logs-db's @timestamp doc values: the node's date_histogram's non-empty hours
      JsonNode histogram = http.get("/indices/logs-db.*/histogram?interval=1h").ok();
      List<String> hours = new ArrayList<>();
      for (JsonNode bucket : histogram.get("buckets")) {
        if (bucket.get("count").asLong() > 0) {
          hours.add(bucket.get("key").asLong() + ":" + bucket.get("count").asLong());
        }
      }
      List<String> expectedHours = new ArrayList<>();
      for (JsonNode agg : answers.path("tsdb").path("snap-2").path("logs-db").path("aggregations")) {
        if (agg.path("query_id").asString().equals("all")) {
          agg.path("aggregations").path("by_timestamp").forEach(b -> expectedHours.add(b.path("key").asLong() + ":"
              + b.path("doc_count").asLong()));
        }
      }
      assertEquals(expectedHours, hours);
      assertEquals(answers.path("tsdb").path("snap-2").path("logs-db").path("count").asLong(),
          histogram.get("total").asLong());
    }
  }
  /** The names of the indices the service has mounted, sorted. */
  private static List<String> mounted(Http http) throws Exception {
    List<String> names = new ArrayList<>();
    for (JsonNode index : http.get("/indices").ok()) {
      names.add(index.get("name").asString());
    }
    return names.stream().sorted().toList();
  }

  /**
   * The service's answer is the node's: its total (or, counted up to a bound, at most the node's) and its top ids,
   * each hit's decoded {@code _source} its own.
   */
  private static void assertAnsweredAsTheNode(JsonNode expected, JsonNode result, String what) {
    if (result.get("totalRelation").asString().equals("eq")) {
      assertEquals(expected.path("total").asLong(), result.get("total").asLong(), what);
    } else {
      assertTrue(result.get("total").asLong() <= expected.path("total").asLong(), "a bound: " + what);
    }
    List<String> ids = new ArrayList<>();
    for (JsonNode hit : result.get("hits")) {
      ids.add(hit.path("fields").path("_id").asString());
      assertEquals(hit.path("sort").get(0).asLong(), hit.path("fields").path("_source").path("seq").asLong(),
          "the decoded _source is the hit's: " + hit);
    }
    List<String> expectedIds = new ArrayList<>();
    expected.path("ids").forEach(id -> expectedIds.add(id.asString()));
    assertEquals(expectedIds, ids, what);
  }
}
