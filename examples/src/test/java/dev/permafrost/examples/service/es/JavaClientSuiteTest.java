/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.es;

import static dev.permafrost.examples.service.es.ClientAnswers.assertSame;
import static dev.permafrost.examples.service.es.ClientAnswers.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch.cat.indices.IndicesRecord;
import co.elastic.clients.elasticsearch.core.SearchRequest;
import co.elastic.clients.elasticsearch.core.SearchResponse;
import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.elasticsearch.core.search.HighlightField;
import co.elastic.clients.json.JsonData;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest5_client.Rest5ClientTransport;
import co.elastic.clients.transport.rest5_client.low_level.Request;
import co.elastic.clients.transport.rest5_client.low_level.Response;
import co.elastic.clients.transport.rest5_client.low_level.ResponseException;
import co.elastic.clients.transport.rest5_client.low_level.Rest5Client;
import co.elastic.clients.util.NamedValue;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.net.URI;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;

/**
 * The official Java client ({@code elasticsearch-java} 9.3.3, with its Jackson mapper) reads the service as it reads
 * a real 9.3.3 node ({@link NodeAndService}): the everyday calls of issue 57, one test each, built with the client's
 * own builders as an application builds them, and what the client returns from each compared whole
 * ({@link ClientAnswers}: only ids and wall time normalized). The same calls through the Python client are
 * {@link PythonClientSuiteTest}'s.
 */
class JavaClientSuiteTest {
  private static final String INDICES = "dsl-*";
  private static ElasticsearchClient node;
  private static ElasticsearchClient service;

  /** One call of the client, made against the node and against the service. */
  @FunctionalInterface
  interface Call<T> {
    T on(ElasticsearchClient client) throws Exception;
  }

  @BeforeAll
  static void start() throws Exception {
    NodeAndService shared = NodeAndService.shared();
    node = client(shared.node().uri());
    service = client(shared.serviceUri());
  }

  private static ElasticsearchClient client(URI uri) {
    return new ElasticsearchClient(new Rest5ClientTransport(Rest5Client.builder(uri).build(), new JacksonJsonpMapper()));
  }

  @AfterAll
  static void stop() throws Exception {
    for (ElasticsearchClient c : new ElasticsearchClient[] {node, service}) {
      if (c != null) {
        c._transport().close();
      }
    }
  }

  /** The call against the node, then against the service, each as the JSON of what the client returned. */
  private static JsonNode[] both(Call<?> call) throws Exception {
    return new JsonNode[] {asJson(call.on(node)), asJson(call.on(service))};
  }

  private static JsonNode asJson(Object value) {
    return value instanceof co.elastic.clients.json.JsonpSerializable s ? json(s) : json(value);
  }

  private static void assertBothSame(String what, Call<?> call) throws Exception {
    JsonNode[] answers = both(call);
    assertSame(what, answers[0], answers[1]);
  }

  @Test
  void search() throws Exception {
    assertBothSame("search", c -> c.search(s -> s.index(INDICES).size(25).from(5)
        .query(q -> q.bool(b -> b.must(m -> m.match(t -> t.field("message").query("login")))
            .filter(f -> f.range(r -> r.number(n -> n.field("status").gte(400.0))))))
        .sort(o -> o.field(f -> f.field("@timestamp").order(SortOrder.Desc)))
        .sort(o -> o.field(f -> f.field("seq").order(SortOrder.Asc)))
        .aggregations("hosts", a -> a.terms(t -> t.field("host"))
            .aggregations("bytes", sub -> sub.avg(v -> v.field("bytes")))), JsonData.class));
  }

  @Test
  void count() throws Exception {
    assertBothSame("count", c -> c.count(n -> n.index(INDICES)
        .query(q -> q.queryString(s -> s.query("level:error AND status:[500 TO 599]")))));
  }

  @Test
  void msearch() throws Exception {
    assertBothSame("msearch", c -> c.msearch(m -> m
        .searches(s -> s.header(h -> h.index("dsl-a")).body(b -> b.size(3)
            .query(q -> q.term(t -> t.field("host").value("web-01"))).sort(o -> o.field(f -> f.field("seq")))))
        .searches(s -> s.header(h -> h.index("dsl-b")).body(b -> b.size(0)
            .aggregations("levels", a -> a.terms(t -> t.field("level")))))
        .searches(s -> s.header(h -> h.index("no-such-index")).body(b -> b)), JsonData.class));
  }

  /** Every document once through a scroll, as the node's (a scroll's order by _doc is each server's own). */
  @Test
  void scroll() throws Exception {
    JsonNode[] answers = both(c -> {
      List<String> documents = new ArrayList<>();
      SearchResponse<JsonData> first = c.search(s -> s.index(INDICES).size(500).scroll(t -> t.time("1m"))
          .query(q -> q.range(r -> r.number(n -> n.field("bytes").gte(20000.0)))), JsonData.class);
      String id = first.scrollId();
      List<Hit<JsonData>> hits = first.hits().hits();
      while (!hits.isEmpty()) {
        hits.forEach(h -> documents.add(h.index() + "/" + h.id() + " " + h.source().toJson()));
        String current = id;
        var next = c.scroll(r -> r.scrollId(current).scroll(t -> t.time("1m")), JsonData.class);
        id = next.scrollId();
        hits = next.hits().hits();
      }
      String last = id;
      boolean cleared = c.clearScroll(r -> r.scrollId(last)).succeeded();
      documents.sort(Comparator.naturalOrder());
      return Map.of("documents", documents, "cleared", cleared);
    });
    assertTrue(answers[0].get("documents").size() > 3000, "the scroll found the documents: " + answers[0].size());
    assertSame("scroll", answers[0], answers[1]);
  }

  /** A point in time paged with search_after to the end, then closed; the _shard_doc tie-breaker's value not compared. */
  @Test
  void pointInTimeWithSearchAfterToTheEnd() throws Exception {
    JsonNode[] answers = both(c -> {
      String pit = c.openPointInTime(p -> p.index(INDICES).keepAlive(t -> t.time("1m"))).id();
      ArrayNode pages = ClientAnswers.array();
      List<FieldValue> after = null;
      try {
        while (true) {
          List<FieldValue> from = after;
          SearchResponse<JsonData> page = c.search(s -> {
            s.pit(p -> p.id(pit).keepAlive(t -> t.time("1m"))).size(1000)
                .query(q -> q.bool(b -> b.mustNot(n -> n.term(t -> t.field("host").value("db-01")))))
                .sort(o -> o.field(f -> f.field("@timestamp").order(SortOrder.Desc)))
                .sort(o -> o.field(f -> f.field("seq").order(SortOrder.Asc)));
            return from == null ? s : s.searchAfter(from);
          }, JsonData.class);
          pages.add(withoutTieBreaker(json(page)));
          if (page.hits().hits().isEmpty()) {
            break;
          }
          after = page.hits().hits().get(page.hits().hits().size() - 1).sort();
        }
      } finally {
        pages.add(json(c.closePointInTime(p -> p.id(pit))));
      }
      return pages;
    });
    assertTrue(answers[0].size() > 4, "paged through every document: " + answers[0].size());
    assertSame("point in time", answers[0], answers[1]);
  }

  /**
   * The implicit tie-breaker of a point in time is {@code _shard_doc}: a hit's last sort value packs the shard's
   * position in the search and its Lucene document id, each server's own numbering; its presence is checked, its
   * value dropped.
   */
  private static JsonNode withoutTieBreaker(JsonNode page) {
    for (JsonNode hit : page.at("/hits/hits")) {
      ArrayNode sort = (ArrayNode) hit.get("sort");
      assertTrue(sort.get(sort.size() - 1).isIntegralNumber(), "the _shard_doc tie-breaker: " + sort);
      sort.remove(sort.size() - 1);
    }
    return page;
  }

  @Test
  void indicesExists() throws Exception {
    JsonNode[] answers = both(c -> {
      Map<String, Boolean> exists = new LinkedHashMap<>();
      for (String name : List.of("dsl-a", "dsl-b", "dsl-*", "no-such-index", "dsl-a,nope")) {
        exists.put(name, c.indices().exists(e -> e.index(List.of(name.split(",")))).value());
      }
      return exists;
    });
    assertEquals(json(Map.of("dsl-a", true, "dsl-b", true, "dsl-*", true, "no-such-index", false,
        "dsl-a,nope", false)), answers[0]);
    assertSame("indices().exists", answers[0], answers[1]);
  }

  @Test
  void indicesGet() throws Exception {
    assertBothSame("indices().get", c -> c.indices().get(g -> g.index(INDICES)));
  }

  @Test
  void indicesGetMapping() throws Exception {
    assertBothSame("indices().getMapping", c -> c.indices().getMapping(g -> g.index(INDICES)));
  }

  @Test
  void catIndices() throws Exception {
    JsonNode[] answers = both(c -> {
      List<IndicesRecord> records = new ArrayList<>(c.cat().indices(i -> i.index(INDICES)).indices());
      records.sort(Comparator.comparing(IndicesRecord::index));
      return records.stream().map(ClientAnswers::json).toList();
    });
    assertEquals(2, answers[0].size(), answers[0].toString());
    assertSame("cat().indices", answers[0], answers[1]);
  }

  @Test
  void clusterHealth() throws Exception {
    assertBothSame("cluster().health", c -> c.cluster().health());
  }

  @Test
  void fieldCaps() throws Exception {
    assertBothSame("fieldCaps", c -> c.fieldCaps(f -> f.index(INDICES).fields("*")));
  }

  @Test
  void fieldCapsOfPatterns() throws Exception {
    assertBothSame("fieldCaps of patterns", c -> c.fieldCaps(f -> f.index(INDICES).fields("user.*", "message*")));
  }

  /** The exception the client throws for a missing index: its status and Elasticsearch's error. */
  @Test
  void aMissingIndexsError() throws Exception {
    assertBothSame("indices().get of a missing index", c -> {
      try {
        c.indices().get(g -> g.index("no-such-index"));
      } catch (ElasticsearchException e) {
        return Map.of("status", e.status(), "error", json(e.error()));
      }
      return fail("no error");
    });
  }

  /** Paths that name no endpoint, through the client's own low-level client: the status, media type and body. */
  @Test
  void unknownEndpoints() throws Exception {
    JsonNode[] answers = both(c -> {
      Rest5Client low = ((Rest5ClientTransport) c._transport()).restClient();
      Map<String, Object> refused = new LinkedHashMap<>();
      for (String[] request : new String[][] {{"GET", "/_no_such_endpoint"}, {"GET", "/dsl-a/_no_such_endpoint"},
          {"GET", "/_cat/no_such_thing"}, {"DELETE", "/_search"}}) {
        Request r = new Request(request[0], request[1]);
        r.setOptions(r.getOptions().toBuilder().addHeader("Accept", "application/json"));
        Response response;
        try {
          response = low.performRequest(r); // the transport's client answers errors too
        } catch (ResponseException e) {
          response = e.getResponse();
        }
        String body = new String(response.getEntity().getContent().readAllBytes(), StandardCharsets.UTF_8);
        refused.put(request[0] + " " + request[1], Map.of("status", response.getStatusCode(),
            "contentType", String.valueOf(response.getHeader("Content-Type")).replaceAll(";.*", ""),
            "body", ClientAnswers.parse(body)));
      }
      return refused;
    });
    List<Integer> statuses = new ArrayList<>();
    answers[0].forEach(a -> statuses.add(a.path("status").asInt()));
    assertEquals(List.of(400, 400, 400, 405), statuses, "the node refuses them: " + answers[0]);
    assertSame("unknown endpoints", answers[0], answers[1]);
  }

  @Test
  void filterPath() throws Exception {
    assertBothSame("filter_path", c -> c.withTransportOptions(c._transportOptions().toBuilder()
        .setParameter("filter_path", "took,timed_out,_shards,hits.total,hits.hits._index,hits.hits._id,"
            + "hits.hits._source.user,-hits.hits._source.user.age").build())
        .search(s -> s.index(INDICES).size(5).query(q -> q.term(t -> t.field("level").value("error")))
            .sort(o -> o.field(f -> f.field("seq"))), JsonData.class));
  }

  @Test
  void highlight() throws Exception {
    assertBothSame("highlight", c -> c.search(s -> s.index(INDICES).size(20)
        .query(q -> q.match(m -> m.field("message").query("disk timeout")))
        .sort(o -> o.field(f -> f.field("seq")))
        .highlight(h -> h.fields(NamedValue.of("message", HighlightField.of(f -> f)))), JsonData.class));
  }

  @Test
  void highlightWithTagsAndFragments() throws Exception {
    assertBothSame("highlight with tags and fragments", c -> c.search(SearchRequest.of(s -> s.withJson(
        new StringReader("{\"size\": 10, \"query\": {\"match_phrase\": {\"message\": \"user login\"}}, \"sort\":"
            + " [\"seq\"], \"highlight\": {\"pre_tags\": [\"<b>\"], \"post_tags\": [\"</b>\"], \"fields\":"
            + " {\"message\": {\"fragment_size\": 18, \"number_of_fragments\": 2}}}}")).index(INDICES)),
        JsonData.class));
  }
}
