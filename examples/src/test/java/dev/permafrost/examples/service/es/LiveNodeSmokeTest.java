/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.es;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.core.SearchRequest;
import co.elastic.clients.elasticsearch.core.SearchResponse;
import co.elastic.clients.json.JsonData;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest5_client.Rest5ClientTransport;
import co.elastic.clients.transport.rest5_client.low_level.Rest5Client;
import dev.permafrost.fixture.DslDataset;
import dev.permafrost.fixture.EngineFixture;
import dev.permafrost.fixture.LiveEngineNode;
import java.io.StringReader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The request generator against a live Elasticsearch 9.3.3 node holding {@link DslDataset}: the node accepts every
 * generated request, sent as raw JSON and, for every fourth, through the official Java client as applications send
 * it ({@code typed_keys} and all); the comparator passes an answer against itself; the client reads the same total.
 */
class LiveNodeSmokeTest {
  private static final long SEED = Long.getLong("dsl.seed", 20240310L);
  private static final int COUNT = Integer.getInteger("dsl.count", 200);
  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  private static LiveEngineNode node;
  private static HttpClient http;
  private static ElasticsearchClient client;

  @BeforeAll
  static void start() throws Exception {
    long started = System.nanoTime();
    node = LiveEngineNode.start(EngineFixture.ELASTICSEARCH_93, Path.of("target", "live-node-es93"));
    System.out.printf("LiveNodeSmokeTest: the node was ready in %d ms%n", (System.nanoTime() - started) / 1_000_000);
    http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    client = new ElasticsearchClient(new Rest5ClientTransport(Rest5Client.builder(node.uri()).build(),
        new JacksonJsonpMapper()));
  }

  @AfterAll
  static void stop() throws Exception {
    if (client != null) {
      client._transport().close();
    }
    if (node != null) {
      node.close();
    }
  }

  @Test
  void theNodeHoldsTheDatasetAndItsSnapshot() throws Exception {
    JsonNode count = MAPPER.readTree(send("GET", "/dsl-a,dsl-b/_count", null).body());
    assertEquals(DslDataset.DOCS_A + DslDataset.DOCS_B - 50, count.get("count").asLong());
    assertTrue(Files.isDirectory(node.repository()), node.repository().toString());
    JsonNode snapshot = MAPPER.readTree(send("GET", "/_snapshot/" + DslDataset.REPOSITORY + "/" + node.snapshot(),
        null).body());
    assertEquals("SUCCESS", snapshot.at("/snapshots/0/state").asString());
  }

  @Test
  void theNodeAcceptsEveryGeneratedRequest() throws Exception {
    List<DslRequests.Request> requests = DslRequests.generate(SEED, COUNT);
    int withHits = 0;
    int withBuckets = 0;
    int throughClient = 0;
    for (int i = 0; i < requests.size(); i++) {
      DslRequests.Request r = requests.get(i);
      HttpResponse<String> answer = send("POST", r.path(), r.body());
      assertEquals(200, answer.statusCode(), () -> r + "\nanswered " + answer.body());
      JsonNode raw = MAPPER.readTree(answer.body());
      EsResponses.assertSameAnswer(r.label(), raw, MAPPER.readTree(answer.body()));
      if (raw.at("/hits/hits").size() > 0) {
        withHits++;
      }
      if (answer.body().contains("\"doc_count\":") && !answer.body().contains("\"doc_count\":0,")) {
        withBuckets++;
      }
      if (i % 4 == 0) {
        throughClient++;
        SearchResponse<JsonData> parsed;
        try {
          SearchRequest request = SearchRequest.of(b -> b.withJson(new StringReader(r.body()))
              .index(List.of(r.indices().split(","))));
          parsed = client.search(request, JsonData.class);
        } catch (RuntimeException e) {
          throw new AssertionError("the Java client failed on " + r + ": " + e, e);
        }
        JsonNode total = raw.at("/hits/total");
        if (total.isMissingNode()) {
          assertNull(parsed.hits().total(), r::toString);
        } else {
          assertEquals(total.get("value").asLong(), parsed.hits().total().value(), r::toString);
          assertEquals(total.get("relation").asString(), parsed.hits().total().relation().jsonValue(), r::toString);
        }
        assertEquals(raw.at("/hits/hits").size(), parsed.hits().hits().size(), r::toString);
        for (int h = 0; h < parsed.hits().hits().size(); h++) {
          assertEquals(raw.at("/hits/hits/" + h + "/_id").asString(), parsed.hits().hits().get(h).id(), r::toString);
        }
        assertEquals(raw.path("aggregations").size(), parsed.aggregations().size(), r::toString);
      }
    }
    System.out.printf("LiveNodeSmokeTest: %d requests (seed %d), %d with hits, %d with non-empty buckets, %d also"
        + " through the Java client%n", requests.size(), SEED, withHits, withBuckets, throughClient);
    assertTrue(withHits > requests.size() / 3, "too few requests find anything: " + withHits);
  }

  private static HttpResponse<String> send(String method, String path, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(node.uri().resolve(path)).timeout(Duration.ofMinutes(1))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
