/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Elasticsearch-compatible API over the service's own snapshots (the sample data, with its declared mapping),
 * checked against brute force over every document's {@code _source}: totals, aggregations, paging with
 * {@code search_after}; and the API's frame: {@code GET /} for clients beside the page for browsers, the product
 * header, Elasticsearch's error bodies and statuses, {@code _msearch}, {@code _count}, {@code _mapping},
 * {@code _field_caps}. The differential test against a real Elasticsearch node is {@code ElasticsearchApiDifferentialTest}.
 */
class ElasticsearchApiTest extends SampleServiceTestBase {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private final HttpClient client = HttpClient.newHttpClient();
  /** Every sample document's source, by its _id. */
  private final Map<String, JsonNode> all = new HashMap<>();

  private HttpResponse<String> send(String method, String path, String body, String accept) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
        .header("Content-Type", "application/vnd.elasticsearch+json; compatible-with=9");
    if (accept != null) {
      b.header("Accept", accept);
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private JsonNode ok(String method, String path, String body) throws Exception {
    HttpResponse<String> r = send(method, path, body, "application/json");
    assertEquals(200, r.statusCode(), r.body());
    assertEquals("Elasticsearch", r.headers().firstValue("X-Elastic-Product").orElse(null));
    return JSON.readTree(r.body());
  }

  @BeforeEach
  void readEverything() throws Exception {
    JsonNode r = ok("POST", "/_search", "{\"size\": 10000, \"track_total_hits\": true}");
    for (JsonNode hit : r.path("hits").path("hits")) {
      all.put(hit.get("_id").asString(), hit.get("_source"));
    }
    assertEquals(6000, r.path("hits").path("total").path("value").asLong());
    assertEquals(6000, all.size(), "every document once, each with an _id of its own");
  }

  @Test
  void theRootAnswersClientsWithANodesInformationAndBrowsersWithThePage() throws Exception {
    HttpResponse<String> info = send("GET", "/", null, "application/vnd.elasticsearch+json; compatible-with=9");
    assertEquals(200, info.statusCode());
    assertEquals("Elasticsearch", info.headers().firstValue("X-Elastic-Product").orElse(null));
    assertTrue(info.headers().firstValue("Content-Type").orElse("").startsWith("application/vnd.elasticsearch+json"));
    JsonNode body = JSON.readTree(info.body());
    assertEquals("9.3.3", body.path("version").path("number").asString());
    assertEquals("You Know, for Search", body.path("tagline").asString());
    HttpResponse<String> page = send("GET", "/", null, "text/html,application/xhtml+xml,*/*;q=0.8");
    assertEquals(200, page.statusCode());
    assertTrue(page.body().contains("<html") || page.body().contains("<!doctype") || page.body().contains("<!DOCTYPE"),
        page.body().substring(0, Math.min(200, page.body().length())));
  }

  @Test
  void aDashboardsCountsAreThoseOfEveryDocument() throws Exception {
    long from = Instant.parse(all.values().stream().map(s -> s.get("@timestamp").asString()).sorted().toList()
        .get(1000)).toEpochMilli();
    JsonNode r = ok("POST", "/*/_search?typed_keys=true", """
        {"size": 0, "track_total_hits": true,
         "query": {"bool": {"filter": [{"term": {"http.response.status_code": "404"}},
                                       {"range": {"@timestamp": {"gte": %d, "format": "epoch_millis"}}}]}},
         "aggs": {"per_hour": {"date_histogram": {"field": "@timestamp", "fixed_interval": "1h", "min_doc_count": 1},
                               "aggs": {"countries": {"terms": {"field": "source.geo.country_iso_code", "size": 3}}}},
                  "bytes": {"stats": {"field": "http.response.body.bytes"}}}}""".formatted(from));
    long expected = 0;
    Map<Long, Long> perHour = new TreeMap<>();
    double sum = 0;
    for (JsonNode s : all.values()) {
      long t = Instant.parse(s.get("@timestamp").asString()).toEpochMilli();
      if (s.path("http.response.status_code").asInt() == 404 && t >= from) {
        expected++;
        perHour.merge(Math.floorDiv(t, 3_600_000L) * 3_600_000L, 1L, Long::sum);
        sum += s.path("http.response.body.bytes").asDouble();
      }
    }
    assertTrue(expected > 10, "the test's query matches something: " + expected);
    assertEquals(expected, r.path("hits").path("total").path("value").asLong());
    JsonNode buckets = r.path("aggregations").path("date_histogram#per_hour").path("buckets");
    Map<Long, Long> actual = new TreeMap<>();
    for (JsonNode b : buckets) {
      actual.put(b.get("key").asLong(), b.get("doc_count").asLong());
      long inCountries = 0;
      for (JsonNode c : b.path("sterms#countries").path("buckets")) {
        inCountries += c.get("doc_count").asLong();
      }
      assertEquals(b.get("doc_count").asLong(), inCountries + b.path("sterms#countries").path("sum_other_doc_count").asLong());
    }
    assertEquals(perHour, actual);
    assertEquals(expected, r.path("aggregations").path("stats#bytes").path("count").asLong());
    assertEquals(sum, r.path("aggregations").path("stats#bytes").path("sum").asDouble(), 1e-6 * Math.max(1, sum));
  }

  @Test
  void pagesWithSearchAfterAreTheWholeSortedSearch() throws Exception {
    String sort = "[{\"http.response.body.bytes\": \"desc\"}, {\"@timestamp\": \"asc\"}, {\"source.port\": \"asc\"}]";
    JsonNode whole = ok("POST", "/_all/_search", "{\"size\": 700, \"sort\": " + sort + ", \"_source\": false}");
    List<String> expected = new ArrayList<>();
    whole.path("hits").path("hits").forEach(h -> expected.add(h.get("_id").asString()));
    List<String> paged = new ArrayList<>();
    JsonNode after = null;
    while (paged.size() < 700) {
      JsonNode page = ok("POST", "/_search", "{\"size\": 100, \"sort\": " + sort + ", \"_source\": false"
          + (after == null ? "" : ", \"search_after\": " + after) + "}");
      page.path("hits").path("hits").forEach(h -> paged.add(h.get("_id").asString()));
      after = page.path("hits").path("hits").get(99).get("sort");
    }
    assertEquals(expected, paged);
  }

  @Test
  void refusalsAreElasticsearchsErrorBodies() throws Exception {
    HttpResponse<String> r = send("POST", "/_search", "{\"query\": {\"fuzzy\": {\"message\": \"get\"}}}", null);
    assertEquals(400, r.statusCode(), r.body());
    assertEquals("Elasticsearch", r.headers().firstValue("X-Elastic-Product").orElse(null));
    JsonNode error = JSON.readTree(r.body());
    assertEquals(400, error.get("status").asInt());
    assertTrue(error.path("error").path("reason").asString().contains("fuzzy"), r.body());
    assertEquals(error.path("error").path("type").asString(),
        error.path("error").path("root_cause").get(0).path("type").asString());

    r = send("POST", "/no-such-index/_search", "{}", null);
    assertEquals(404, r.statusCode(), r.body());
    assertEquals("index_not_found_exception", JSON.readTree(r.body()).path("error").path("type").asString());
    assertTrue(r.body().contains("no-such-index"), r.body());
    JsonNode none = ok("POST", "/no-such-*/_search", "{}");
    assertEquals(0, none.path("hits").path("total").path("value").asLong(), "a wildcard may match nothing");

    r = send("POST", "/_search", "{\"aggs\": {\"u\": {\"cardinality\": {\"field\": \"url.path\"}}}}", null);
    assertEquals(400, r.statusCode(), r.body());
    assertTrue(r.body().contains("cardinality"), r.body());
    r = send("POST", "/_search", "{\"size\": 5, \"from\": 9999}", null);
    assertEquals(400, r.statusCode(), r.body());
    assertTrue(r.body().contains("10000"), r.body());
  }

  @Test
  void msearchCountMappingAndFieldCaps() throws Exception {
    String ndjson = """
        {"index": "*"}
        {"size": 0, "query": {"term": {"http.response.status_code": "404"}}}
        {"index": "*"}
        {"query": {"no_such_query": {}}}
        """;
    HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/_msearch"))
        .header("Content-Type", "application/x-ndjson").POST(HttpRequest.BodyPublishers.ofString(ndjson)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    JsonNode responses = JSON.readTree(r.body()).get("responses");
    assertEquals(2, responses.size());
    assertEquals(200, responses.get(0).get("status").asInt());
    long notFound = all.values().stream()
        .filter(s -> s.path("http.response.status_code").asInt() == 404).count();
    assertEquals(notFound, responses.get(0).path("hits").path("total").path("value").asLong());
    assertEquals(400, responses.get(1).get("status").asInt());
    assertTrue(responses.get(1).path("error").path("reason").asString().contains("no_such_query"), r.body());

    JsonNode count = ok("POST", "/_count", "{\"query\": {\"term\": {\"http.response.status_code\": \"404\"}}}");
    assertEquals(notFound, count.get("count").asLong());

    JsonNode mapping = ok("GET", "/_mapping", null);
    assertTrue(mapping.size() == 3, mapping.toString());
    JsonNode one = mapping.values().iterator().next();
    assertEquals("date", one.path("mappings").path("properties").path("@timestamp").path("type").asString());

    JsonNode caps = ok("GET", "/_field_caps?fields=*", null);
    JsonNode status = caps.path("fields").path("http.response.status_code").path("keyword");
    assertTrue(status.path("searchable").asBoolean() && status.path("aggregatable").asBoolean(), caps.toString());
    JsonNode message = caps.path("fields").path("message").path("text");
    assertTrue(message.path("searchable").asBoolean() && !message.path("aggregatable").asBoolean(), caps.toString());
    assertEquals(3, caps.path("indices").size());
  }
}
