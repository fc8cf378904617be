/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.fixture.EngineFixture;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One query front under the service's doors: the same {@code q}, time range and sort give the same hits and counts
 * through the service's own search, its histogram and the Elasticsearch API, over one of the service's own snapshots
 * (the sample, by its declared mapping) and over an Elasticsearch 9.3 time_series index (by the mapping its snapshot
 * recorded, whose {@code @timestamp} is in doc values only), where {@code from}/{@code to} match what the node matched
 * for the same range. The CLI's door is {@code cli}'s {@code EngineFormatCliTest} and {@code FileSystemCliTest}.
 */
class OneQueryFrontTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  /** An own snapshot of the sample: one day of it. */
  private static final String OWN = "logs-nginx-2024.02.02";
  /** The time_series index's one shard. */
  private static final String TSDB = "metrics-ts";

  @TempDir static Path home;
  private static ConfigurableApplicationContext context;
  private static Http http;
  private static JsonNode answers;

  @BeforeAll
  static void start() throws Exception {
    Path fixture = EngineFixture.ELASTICSEARCH_93.ensure();
    answers = JSON.readTree(fixture.resolve("answers.json").toFile());
    context = new SpringApplicationBuilder(SearchServiceApplication.class).run("--server.port=0",
        "--permafrost.home=" + home, "--permafrost.cache.size=64mb", "--permafrost.sample.days=3",
        "--permafrost.sample.events-per-day=2000", "--permafrost.engine-repository.uri=" + fixture.resolve("repo").toUri(),
        "--permafrost.engine-repository.snapshot=snap-2", "--permafrost.engine-repository.indices=" + TSDB);
    http = new Http(((WebServerApplicationContext) context).getWebServer().getPort());
  }

  @AfterAll
  static void stop() {
    if (context != null) {
      context.close();
    }
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  /**
   * What a door answered: the total, whether it is exact (the service's search counts exactly up to 1,000 hits an
   * index, as Lucene does; the Elasticsearch API is asked to count all), and the top hits' sources with their sort
   * values.
   */
  private record Answer(long total, boolean exact, List<String> hits) {}

  /** {@code /indices/{index}/search}. */
  private static Answer ownSearch(String index, String q, String from, String to, String sort) throws Exception {
    JsonNode r = http.get("/indices/" + index + "/search?size=10&q=" + enc(q) + (from == null ? "" : "&from=" + enc(from))
        + (to == null ? "" : "&to=" + enc(to)) + "&sort=" + enc(sort)).ok();
    List<String> hits = new ArrayList<>();
    for (JsonNode hit : r.get("hits")) {
      hits.add(hit.path("fields").path("_source") + " " + hit.path("sort"));
    }
    return new Answer(r.get("total").asLong(), r.get("totalRelation").asString().equals("eq"), hits);
  }

  /** {@code /indices/{index}/histogram}'s total. */
  private static long histogramTotal(String index, String q, String from, String to) throws Exception {
    return http.get("/indices/" + index + "/histogram?interval=1h&q=" + enc(q) + (from == null ? "" : "&from=" + enc(from))
        + (to == null ? "" : "&to=" + enc(to))).ok().get("total").asLong();
  }

  /**
   * {@code /{index}/_search}: query_string (terms without a field on {@code message}, the service's default field),
   * a range filter on @timestamp [from, to), the sort.
   */
  private static Answer elasticsearch(String index, String q, String from, String to, String sort) throws Exception {
    String range = from == null && to == null ? "" : ", \"filter\": {\"range\": {\"@timestamp\": {"
        + (from == null ? "" : "\"gte\": \"" + from + "\"") + (from != null && to != null ? ", " : "")
        + (to == null ? "" : "\"lt\": \"" + to + "\"") + "}}}";
    int colon = sort.lastIndexOf(':');
    String body = "{\"size\": 10, \"track_total_hits\": true, \"query\": {\"bool\": {\"must\": {\"query_string\":"
        + " {\"default_field\": \"message\", \"query\": " + JSON.writeValueAsString(q) + "}}" + range + "}}, \"sort\": [{\"" + sort.substring(0, colon)
        + "\": \"" + sort.substring(colon + 1) + "\"}]}";
    JsonNode r = http.post("/" + index + "/_search", body).ok();
    assertEquals("eq", r.path("hits").path("total").path("relation").asString(), r.toString());
    List<String> hits = new ArrayList<>();
    for (JsonNode hit : r.path("hits").path("hits")) {
      hits.add(hit.path("_source") + " " + hit.path("sort"));
    }
    return new Answer(r.path("hits").path("total").path("value").asLong(), true, hits);
  }

  /** The three doors answer {@code q} in [from, to) sorted by {@code sort} alike; the total, for more checks. */
  private static long sameThroughEveryDoor(String ownIndex, String esIndex, String q, String from, String to, String sort)
      throws Exception {
    Answer own = ownSearch(ownIndex, q, from, to, sort);
    Answer es = elasticsearch(esIndex, q, from, to, sort);
    String what = esIndex + " q=" + q + " [" + from + ", " + to + ") sort=" + sort;
    if (own.exact()) {
      assertEquals(es.total(), own.total(), what + ": totals");
    } else {
      assertTrue(own.total() >= 1000 && own.total() <= es.total(), what + ": a lower bound " + own.total()
          + " of " + es.total());
    }
    assertEquals(es.hits(), own.hits(), what + ": hits");
    assertEquals(es.total(), histogramTotal(ownIndex, q, from, to), what + ": the histogram's total");
    return es.total();
  }

  @Test
  void ownSnapshotAnswersAlikeThroughEveryDoor() throws Exception {
    long all = sameThroughEveryDoor(OWN, OWN, "*", null, null, "@timestamp:desc");
    assertEquals(2000, all);
    // a number field's range, from its points: the declared mapping's long, not a range of terms matching nothing
    long large = sameThroughEveryDoor(OWN, OWN, "http.response.body.bytes:[1000 TO *]", null, null,
        "http.response.body.bytes:asc");
    assertTrue(large > 0 && large < all, "some, not all: " + large);
    long notFound = sameThroughEveryDoor(OWN, OWN, "http.response.status_code:404", null, null, "@timestamp:asc");
    assertTrue(notFound > 0 && notFound < all, "status:404 counts alike in search and histogram: " + notFound);
    long morning = sameThroughEveryDoor(OWN, OWN, "*", "2024-02-02T06:00:00Z", "2024-02-02T12:00:00Z", "@timestamp:desc");
    assertTrue(morning > 0 && morning < all, "the range: " + morning);
    sameThroughEveryDoor(OWN, OWN, "host.name:web-03 OR http.request.method:POST", "2024-02-02T03:00:00Z",
        "2024-02-02T20:00:00.5Z", "http.response.body.bytes:desc");
    sameThroughEveryDoor(OWN, OWN, "GET AND http.response.body.bytes:<500", "2024-02-02T10:00:00Z", null,
        "@timestamp:asc");
  }

  @Test
  void timeSeriesIndexAnswersAsTheNodeThroughEveryDoor() throws Exception {
    String shard = TSDB + ".0";
    JsonNode node = answers.path("tsdb").path("snap-2").path(TSDB);
    // from/to on timestamps kept in doc values only: what the node matched for the same range
    JsonNode time = null;
    for (JsonNode s : node.path("searches")) {
      if (s.path("query_id").asString().equals("time") && s.path("sort_id").asString().equals("timestamp")) {
        time = s;
      }
    }
    assertEquals("@timestamp:[2024-01-01T02:00:00Z TO 2024-01-01T04:00:00Z}", time.path("query_string").asString());
    long total = sameThroughEveryDoor(shard, TSDB, "*", "2024-01-01T02:00:00Z", "2024-01-01T04:00:00Z", "@timestamp:desc");
    assertEquals(time.path("total").asLong(), total, "the node's count over the range");
    JsonNode r = http.get("/indices/" + shard + "/search?size=10&from=2024-01-01T02:00:00Z&to=2024-01-01T04:00:00Z"
        + "&sort=" + enc("@timestamp:desc")).ok();
    List<String> ids = new ArrayList<>();
    r.get("hits").forEach(h -> ids.add(h.path("fields").path("_id").asString()));
    List<String> expected = new ArrayList<>();
    time.path("ids").forEach(id -> expected.add(id.asString()));
    assertEquals(expected, ids, "the node's hits, newest first");
    assertEquals(node.path("count").asLong(),
        sameThroughEveryDoor(shard, TSDB, "*:*", "2024-01-01T00:00:00Z", "2024-03-01T00:00:00Z", "@timestamp:asc"));
    sameThroughEveryDoor(shard, TSDB, "host:node-a AND cpu:[50 TO 75}", "2024-01-01T01:30:00Z", "2024-01-01T09:00:00Z",
        "memory:asc");
    sameThroughEveryDoor(shard, TSDB, "pod:pod-2", null, "2024-01-01T05:00:00Z", "@timestamp:desc");
  }
}
