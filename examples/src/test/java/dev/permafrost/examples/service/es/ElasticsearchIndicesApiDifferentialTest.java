/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.es;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.examples.service.SearchServiceApplication;
import dev.permafrost.fixture.EngineFixture;
import dev.permafrost.fixture.LiveEngineNode;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A real Elasticsearch 9.3.3 node (holding {@code dsl-a}, two shards, and {@code dsl-b}, one) and the service over its
 * snapshot answer the index, {@code _cat} and cluster APIs alike: {@code HEAD} and {@code GET /{index}} (names,
 * patterns, lists; settings as the snapshot recorded them, which are the node's own for the same index),
 * {@code _resolve/index}, {@code _alias}, {@code _cat/indices} and {@code _cat/count} as text and JSON, and
 * {@code _cluster/health}; {@code filter_path} over many paths on every endpoint; and a request for an endpoint the
 * service lacks or with a method it does not take, with the node's status, body and a media type the clients read.
 */
class ElasticsearchIndicesApiDifferentialTest {
  private static final JsonMapper MAPPER = JsonMapper.builder().build();
  /** What the official clients send (the Python and Java clients of 9.x). */
  private static final String CLIENT_ACCEPT = "application/vnd.elasticsearch+json; compatible-with=9";
  private static LiveEngineNode node;
  private static ConfigurableApplicationContext service;
  private static URI serviceUri;
  private static HttpClient http;

  @BeforeAll
  static void start() throws Exception {
    node = LiveEngineNode.start(EngineFixture.ELASTICSEARCH_93, Path.of("target", "live-node-indices"));
    Path home = Files.createTempDirectory("permafrost-indices-differential");
    service = new SpringApplicationBuilder(SearchServiceApplication.class).run("--server.port=0",
        "--permafrost.home=" + home, "--permafrost.cache.size=64mb", "--permafrost.sample.enabled=false",
        "--permafrost.engine-repository.uri=" + node.repository().toUri(),
        "--permafrost.engine-repository.snapshot=" + node.snapshot());
    serviceUri = URI.create("http://127.0.0.1:" + ((WebServerApplicationContext) service).getWebServer().getPort());
    http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
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

  @Test
  void headAndGetIndexAsTheNode() throws Exception {
    for (String expression : List.of("dsl-a", "dsl-b", "nosuch", "dsl-*", "nosuch-*", "dsl-a,nosuch", "dsl-a,dsl-b",
        "_all", "*", "dsl-*,-dsl-b", "dsl-a,nosuch-*")) {
      HttpResponse<String> e = send(node.uri(), "HEAD", "/" + expression, null, true);
      HttpResponse<String> a = send(serviceUri, "HEAD", "/" + expression, null, true);
      assertEquals(e.statusCode(), a.statusCode(), "HEAD /" + expression);
      assertEquals(mediaType(e), mediaType(a), expression);
      assertSameJson("GET /" + expression, node.uri(), "/" + expression);
      assertSameJson("GET /" + expression + "?flat_settings=true", node.uri(), "/" + expression + "?flat_settings=true");
    }
    // the settings are the snapshot's, which the node shows for the index it snapshot
    JsonNode settings = MAPPER.readTree(send(serviceUri, "GET", "/dsl-a?flat_settings=true", null, false).body())
        .at("/dsl-a/settings");
    assertEquals("2", settings.get("index.number_of_shards").asString());
    assertTrue(settings.has("index.uuid") && settings.has("index.creation_date"), settings.toString());
  }

  @Test
  void resolveAndAliasesAsTheNode() throws Exception {
    for (String path : List.of("/_resolve/index/*", "/_resolve/index/dsl-*", "/_resolve/index/dsl-a",
        "/_resolve/index/nosuch", "/_resolve/index/nosuch*", "/_resolve/index/dsl-*,nosuch", "/_alias",
        "/dsl-a/_alias", "/dsl-*/_alias", "/nosuch/_alias", "/dsl-a,dsl-b/_alias")) {
      assertSameJson("GET " + path, node.uri(), path);
    }
  }

  @Test
  void catIndicesAndCountAsTheNode() throws Exception {
    // every column but the sizes: exact, as text and as JSON
    String exact = "health,status,index,uuid,pri,rep,docs.count,docs.deleted,creation.date,creation.date.string";
    for (String query : List.of("v&s=index&h=" + exact, "s=index:desc&h=" + exact, "v&h=i,dc,dd,p,r,cd,cds&s=i",
        "v&h=index,pri&s=pri", "format=json&s=index&h=" + exact, "format=json&h=idx,docsCount&s=dc:desc",
        "v&h=health,nosuch,index&s=index", "s=nosuch", "s=index:up")) {
      for (String path : List.of("/_cat/indices", "/_cat/indices/dsl-*", "/_cat/indices/dsl-b",
          "/_cat/indices/nosuch", "/_cat/indices/nosuch*")) {
        HttpResponse<String> e = send(node.uri(), "GET", path + "?" + query, null, false);
        HttpResponse<String> a = send(serviceUri, "GET", path + "?" + query, null, false);
        assertEquals(e.statusCode(), a.statusCode(), path + "?" + query + ": " + a.body());
        assertEquals(mediaType(e), mediaType(a), path + query);
        if (e.statusCode() == 200 && !query.contains("json")) {
          assertEquals(e.body(), a.body(), path + "?" + query);
        } else {
          assertEquals(MAPPER.readTree(e.body()), MAPPER.readTree(a.body()), path + "?" + query);
        }
      }
    }
    // the sizes: the snapshot's files, which the node's live store held when it wrote them (it may have written a
    // few bytes since), readable and in bytes, in the node's alignment
    JsonNode expected = MAPPER.readTree(send(node.uri(), "GET", "/_cat/indices?format=json&bytes=b&s=index&h=index,"
        + "store.size,pri.store.size,dataset.size", null, false).body());
    JsonNode actual = MAPPER.readTree(send(serviceUri, "GET", "/_cat/indices?format=json&bytes=b&s=index&h=index,"
        + "store.size,pri.store.size,dataset.size", null, false).body());
    assertEquals(expected.size(), actual.size());
    for (int i = 0; i < expected.size(); i++) {
      for (String column : List.of("store.size", "pri.store.size", "dataset.size")) {
        long e = Long.parseLong(expected.get(i).get(column).asString());
        long a = Long.parseLong(actual.get(i).get(column).asString());
        assertTrue(a <= e && e - a < 100, column + " of " + actual.get(i) + ": the node's is " + e);
      }
    }
    String text = send(serviceUri, "GET", "/_cat/indices?v&s=index", null, false).body();
    assertTrue(text.startsWith("health status index uuid                   pri rep docs.count docs.deleted store.size"
        + " pri.store.size dataset.size\ngreen  open   dsl-a "), text);

    for (String path : List.of("/_cat/count", "/_cat/count/dsl-a", "/_cat/count/dsl-*", "/_cat/count/nosuch")) {
      for (String query : List.of("format=json", "format=json&h=count", "v&h=count", "h=count")) {
        long from = Instant.now().getEpochSecond();
        HttpResponse<String> e = send(node.uri(), "GET", path + "?" + query, null, false);
        HttpResponse<String> a = send(serviceUri, "GET", path + "?" + query, null, false);
        long to = Instant.now().getEpochSecond();
        assertEquals(e.statusCode(), a.statusCode(), path + "?" + query + ": " + a.body());
        assertEquals(mediaType(e), mediaType(a), path + query);
        assertEquals(query.contains("json") || e.statusCode() != 200 ? withoutClock(e.body(), from, to)
            : e.body(), query.contains("json") || a.statusCode() != 200 ? withoutClock(a.body(), from, to)
            : a.body(), path + "?" + query);
      }
    }
    HttpResponse<String> counted = send(serviceUri, "POST", "/_cat/count/dsl-*?format=json",
        "{\"query\": {\"term\": {\"level\": \"error\"}}}", false);
    assertEquals(MAPPER.readTree(send(node.uri(), "POST", "/_cat/count/dsl-*?format=json",
        "{\"query\": {\"term\": {\"level\": \"error\"}}}", false).body()).at("/0/count"),
        MAPPER.readTree(counted.body()).at("/0/count"));
    String count = send(serviceUri, "GET", "/_cat/count?v", null, false).body();
    assertTrue(count.matches("epoch      timestamp count\n\\d{10} \\d\\d:\\d\\d:\\d\\d  4450\n"), count);
  }

  /**
   * A cat API's JSON rows without their clock columns, once each row's {@code epoch} is checked to fall in [from, to]
   * (seconds; the two requests are sent in that span, so the node's and ours may be a second apart) and its
   * {@code timestamp} to be that epoch's time of day in UTC, as the node writes it.
   */
  private static String withoutClock(String body, long from, long to) {
    JsonNode rows = MAPPER.readTree(body);
    for (JsonNode row : rows.isArray() ? rows : List.<JsonNode>of()) {
      if (row instanceof ObjectNode o && o.has("epoch")) {
        long epoch = Long.parseLong(o.get("epoch").asString());
        assertTrue(epoch >= from && epoch <= to, "epoch " + epoch + " outside [" + from + ", " + to + "]: " + body);
        assertEquals(LocalTime.ofInstant(Instant.ofEpochSecond(epoch), ZoneOffset.UTC).format(HH_MM_SS),
            o.get("timestamp").asString(), body);
        o.remove("epoch");
        o.remove("timestamp");
      }
    }
    return rows.toString();
  }

  private static final DateTimeFormatter HH_MM_SS = DateTimeFormatter.ofPattern("HH:mm:ss");

  @Test
  void clusterHealthAsTheNode() throws Exception {
    for (String path : List.of("/_cluster/health", "/_cluster/health?level=indices", "/_cluster/health?level=shards",
        "/_cluster/health/dsl-a", "/_cluster/health/dsl-*?level=indices", "/_cluster/health/nosuch?timeout=1s",
        "/_cluster/health?wait_for_status=green", "/_cluster/health?wait_for_status=yellow&timeout=1s")) {
      HttpResponse<String> e = send(node.uri(), "GET", path, null, false);
      HttpResponse<String> a = send(serviceUri, "GET", path, null, false);
      assertEquals(e.statusCode(), a.statusCode(), path + ": " + a.body());
      ObjectNode expected = (ObjectNode) MAPPER.readTree(e.body());
      ObjectNode actual = (ObjectNode) MAPPER.readTree(a.body());
      assertEquals("permafrost", actual.get("cluster_name").asString());
      expected.remove("cluster_name");
      actual.remove("cluster_name");
      assertEquals(expected, actual, path);
    }
  }

  /** Many {@code filter_path}s over every endpoint's answer: each kept part equal to the node's. */
  @Test
  void filterPathOnEveryEndpointAsTheNode() throws Exception {
    List<String> paths = List.of("hits.hits._id", "hits.total", "-hits.hits", "hits.hits._source.user.name",
        "**.name", "**._id", "hits.**.name", "aggregations.h.buckets.key", "hits.hits._sour*",
        "*.hits._id,-hits.hits._index", "-hits.hits._source.user.*", "-**.user", "hits.hits", "nosuch",
        "-took,-timed_out,-_shards,-hits,-aggregations", "hits.hits.sort", "**", "-**", "h*.t*",
        "hits.hits._source.user", "hits.*.value", "took,nosuch.x", "hits.hits.*", "_shards.*ed", "**.h.**.doc_count",
        "-hits.hits.*", "-hits.hits.*,-hits.total", "-**.hits", "-hits.hits._source",
        "hits.hits._source,-hits.hits._source.host", "-took,took", "**.took", "**.total", "-**.total",
        "**.hits.total", "**.**.value", "hits.**", "-hits.**", "hits.**.total.value", "hits.hits.**._id",
        "hit*.*s.*id", "hits..total", "hits.total.", "hits.total,,took", "-", "*", "took,-took",
        "aggregations.*.buckets.doc_count", "-aggregations.h.buckets", "**.doc_count_error_upper_bound");
    String search = "{\"size\": 3, \"sort\": [\"seq\"], \"_source\": [\"host\", \"user\"], \"aggs\": {\"h\": {\"terms\":"
        + " {\"field\": \"host\", \"size\": 2}}}}";
    int compared = 0;
    for (String fp : paths) {
      String q = "filter_path=" + URLEncoder.encode(fp, StandardCharsets.UTF_8);
      assertSameFiltered(fp, "POST", "/dsl-*/_search?" + q, search);
      assertSameFiltered(fp, "POST", "/nosuch-*/_search?" + q, "{}");
      compared += 2;
    }
    List<String[]> endpoints = List.of(new String[] {"/dsl-*", "*.settings.index.uuid"},
        new String[] {"/dsl-*", "-*.mappings,-*.settings"}, new String[] {"/dsl-a", "**.type"},
        new String[] {"/dsl-a", "*.mappings.properties.user.**"}, new String[] {"/dsl-a", "-*.settings.index.*"},
        new String[] {"/dsl-a?flat_settings=true", "dsl-a.settings.index.number_of_shards"},
        new String[] {"/dsl-a?flat_settings=true", "dsl-a.settings.index.number*"},
        new String[] {"/_alias", "*.aliases"}, new String[] {"/_alias", "*.aliases.x"},
        new String[] {"/_alias", "-*.aliases.x"}, new String[] {"/_resolve/index/*", "indices.name"},
        new String[] {"/_resolve/index/*", "-indices.*"}, new String[] {"/_resolve/index/*", "**.attributes"},
        new String[] {"/_cat/indices?format=json&s=index", "index"},
        new String[] {"/_cat/indices?format=json&s=index", "docs*"},
        new String[] {"/_cat/indices?format=json&s=index", "docs.count"},
        new String[] {"/_cat/indices?format=json&s=index", "-index,-uuid,-*size,-creation*"},
        new String[] {"/_cat/indices?format=json&s=index", "-*"},
        new String[] {"/_cat/indices?format=json&s=index", "**.index"},
        new String[] {"/_cat/indices?format=json&s=index&h=index,pri", "-**.index"},
        new String[] {"/_cat/indices?v&s=index", "index"}, new String[] {"/_cat/count?format=json", "count"},
        new String[] {"/_cluster/health", "status,*_shards"}, new String[] {"/_cluster/health?level=indices",
            "indices.*.status"}, new String[] {"/_cluster/health?level=shards", "**.primary_active"},
        new String[] {"/_cluster/health", "-cluster_name"}, new String[] {"/dsl-a/_mapping", "**.user.properties"},
        new String[] {"/dsl-a/_count", "count"}, new String[] {"/dsl-*/_field_caps?fields=user.*", "fields.*.*.type"},
        new String[] {"/nosuch/_search", "error"}, new String[] {"/dsl-*/_search?size=1&sort=seq", "hits.hits._id"});
    for (String[] endpoint : endpoints) {
      String sep = endpoint[0].contains("?") ? "&" : "?";
      assertSameFiltered(endpoint[1], "GET", endpoint[0] + sep + "filter_path="
          + URLEncoder.encode(endpoint[1], StandardCharsets.UTF_8), null);
      compared++;
    }
    String ndjson = "{\"index\": \"dsl-*\"}\n{\"size\": 1, \"sort\": [\"seq\"]}\n{\"index\": \"nosuch\"}\n{}\n";
    for (String fp : List.of("responses.hits.hits._id", "responses.status", "-responses.hits", "**.type")) {
      assertSameFiltered(fp, "POST", "/_msearch?filter_path=" + URLEncoder.encode(fp, StandardCharsets.UTF_8),
          ndjson);
      compared++;
    }
    assertTrue(compared > 100, "compared " + compared);
  }

  private static void assertSameFiltered(String fp, String method, String path, String body) throws Exception {
    HttpResponse<String> e = send(node.uri(), method, path, body, true);
    HttpResponse<String> a = send(serviceUri, method, path, body, true);
    String what = method + " " + path + " (filter_path " + fp + ")";
    assertEquals(e.statusCode(), a.statusCode(), what + ": " + a.body());
    assertEquals(mediaType(e), mediaType(a), what);
    if (e.body().isEmpty() || !mediaType(e).contains("json")) {
      assertEquals(e.body(), a.body(), what);
      return;
    }
    assertEquals(withoutTook(MAPPER.readTree(e.body())), withoutTook(MAPPER.readTree(a.body())), what);
  }

  /** An answer with its times left out, and what differs by nature between a node and the service. */
  private static JsonNode withoutTook(JsonNode answer) {
    if (answer instanceof ObjectNode o) {
      if (o.has("took")) {
        o.put("took", 0);
      }
      if (o.has("cluster_name")) {
        o.put("cluster_name", "-");
      }
      if (o.get("responses") != null) {
        o.get("responses").forEach(ElasticsearchIndicesApiDifferentialTest::withoutTook);
      }
    }
    return answer;
  }

  /**
   * An endpoint the service lacks, or a method it does not take, from a client: the node's status and body, with the
   * media type the client asked for (never {@code application/problem+json}); from {@code curl} too where the path
   * says it is Elasticsearch's ({@code _} starts a segment).
   */
  @Test
  void unknownEndpointsAndWrongMethodsAsTheNode() throws Exception {
    List<String[]> requests = List.of(new String[] {"GET", "/dsl-a/_nosuch"}, new String[] {"POST", "/dsl-a/_nosuch"},
        new String[] {"GET", "/dsl-a/_nosuch?x=1&pretty"}, new String[] {"GET", "/a/b/c/d/e"},
        new String[] {"POST", "/_cat/indices"}, new String[] {"DELETE", "/_search"}, new String[] {"PUT", "/_search"},
        new String[] {"POST", "/_cluster/health"}, new String[] {"GET", "/_cat/nosuch"},
        new String[] {"DELETE", "/_cat/indices"}, new String[] {"GET", "/_nosuch"},
        new String[] {"DELETE", "/_search?filter_path=x"}, new String[] {"GET", "/dsl-a/_doc/d1/_nosuch"},
        new String[] {"DELETE", "/_cat/count"}, new String[] {"DELETE", "/_cluster/health"},
        new String[] {"PUT", "/dsl-a/_nosuch"});
    for (boolean client : new boolean[] {true, false}) {
      for (String[] r : requests) {
        if (!client && !r[1].contains("/_")) {
          continue; // a path without _ from curl: the service's own answer
        }
        HttpResponse<String> e = send(node.uri(), r[0], r[1], null, client);
        HttpResponse<String> a = send(serviceUri, r[0], r[1], null, client);
        String what = r[0] + " " + r[1] + (client ? " from a client" : "");
        assertEquals(e.statusCode(), a.statusCode(), what + ": " + a.body());
        assertEquals(mediaType(e), mediaType(a), what);
        assertEquals(e.headers().firstValue("Allow"), a.headers().firstValue("Allow"), what);
        assertEquals(MAPPER.readTree(e.body()), MAPPER.readTree(a.body()), what);
        assertEquals("Elasticsearch", a.headers().firstValue("X-Elastic-Product").orElse(null), what);
      }
    }
    // a method the node takes and the service does not (an archive writes nothing): 405 naming what it takes
    HttpResponse<String> put = send(serviceUri, "PUT", "/dsl-a", "{}", true);
    assertEquals(405, put.statusCode(), put.body());
    assertEquals("{\"error\":\"Incorrect HTTP method for uri [/dsl-a] and method [PUT], allowed: [GET, HEAD]\","
        + "\"status\":405}", put.body());
    // the service's own API and page keep their own answers
    HttpResponse<String> own = send(serviceUri, "GET", "/no-such-page", null, false);
    assertEquals(404, own.statusCode());
    assertEquals("application/problem+json", own.headers().firstValue("Content-Type").orElse(null));
    HttpResponse<String> page = send(serviceUri, "GET", "/app.js", null, false);
    assertEquals(200, page.statusCode());
    assertFalse(page.body().startsWith("{"), "the page's script, not an index");
  }

  /** Every answer a client gets carries the media type the node gives it, for every endpoint, ok or refused. */
  @Test
  void answersCarryTheNodesMediaTypes() throws Exception {
    Map<String, String> requests = Map.of("/dsl-*/_search", "{\"size\": 1}", "/dsl-*/_count", "{}",
        "/nosuch/_search", "{}", "/dsl-*/_search?size=x", "{}");
    for (var r : requests.entrySet()) {
      for (boolean client : new boolean[] {true, false}) {
        HttpResponse<String> e = send(node.uri(), "POST", r.getKey(), r.getValue(), client);
        HttpResponse<String> a = send(serviceUri, "POST", r.getKey(), r.getValue(), client);
        assertEquals(e.statusCode(), a.statusCode(), r.getKey() + ": " + a.body());
        assertEquals(mediaType(e), mediaType(a), r.getKey());
      }
    }
    List<String> gets = new ArrayList<>(List.of("/dsl-a", "/_cat/indices", "/_cat/indices?format=json", "/_cat/count",
        "/_cluster/health", "/_resolve/index/*", "/_alias", "/dsl-a/_mapping", "/nosuch", "/_cat/indices/nosuch"));
    for (String path : gets) {
      for (boolean client : new boolean[] {true, false}) {
        HttpResponse<String> e = send(node.uri(), "GET", path, null, client);
        HttpResponse<String> a = send(serviceUri, "GET", path, null, client);
        assertEquals(e.statusCode(), a.statusCode(), path + ": " + a.body());
        if (!client && path.equals("/nosuch")) {
          // a name that is no index, not from a client: a page the service does not have, in its own words
          assertEquals("application/problem+json", mediaType(a), a.body());
          continue;
        }
        assertEquals(mediaType(e), mediaType(a), path);
      }
    }
  }

  /**
   * An answer's media type, blanks left out: Tomcat writes a charset as {@code text/plain;charset=UTF-8}, the node
   * {@code text/plain; charset=UTF-8}, the same type to every client (they split it at the {@code ;}).
   */
  private static String mediaType(HttpResponse<String> answer) {
    return answer.headers().firstValue("Content-Type").orElse("").replace(" ", "");
  }

  /** The official Java client's index, {@code _cat} and cluster calls read the service as they read the node. */
  @Test
  void theOfficialJavaClientReadsTheServiceAsItReadsTheNode() throws Exception {
    List<String> answers = new ArrayList<>();
    for (URI uri : List.of(node.uri(), serviceUri)) {
      try (var transport = new co.elastic.clients.transport.rest5_client.Rest5ClientTransport(
          co.elastic.clients.transport.rest5_client.low_level.Rest5Client.builder(uri).build(),
          new co.elastic.clients.json.jackson.JacksonJsonpMapper())) {
        var client = new co.elastic.clients.elasticsearch.ElasticsearchClient(transport);
        StringBuilder out = new StringBuilder();
        out.append(client.indices().exists(e -> e.index("dsl-a")).value()).append(' ');
        out.append(client.indices().exists(e -> e.index("nosuch")).value()).append(' ');
        var got = client.indices().get(g -> g.index("dsl-*"));
        out.append(new java.util.TreeSet<>(got.indices().keySet())).append(' ');
        out.append(got.get("dsl-a").settings().index().numberOfShards()).append(' ');
        out.append(got.get("dsl-a").settings().index().uuid()).append(' ');
        out.append(client.indices().getMapping(m -> m.index("dsl-a")).get("dsl-a").mappings().properties()
            .keySet()).append(' ');
        client.cat().indices(c -> c.index("dsl-*")).indices().stream()
            .sorted(java.util.Comparator.comparing(i -> i.index()))
            .forEach(i -> out.append(i.index()).append('/').append(i.health()).append('/').append(i.docsCount())
                .append('/').append(i.docsDeleted()).append('/').append(i.pri()).append(' '));
        out.append(client.cat().count(c -> c.index("dsl-*")).countRecords().get(0).count()).append(' ');
        var health = client.cluster().health();
        out.append(health.status()).append('/').append(health.activePrimaryShards()).append('/')
            .append(health.unassignedShards()).append(' ');
        out.append(client.indices().resolveIndex(r -> r.name("dsl-*")).indices().size());
        try {
          client.indices().get(g -> g.index("nosuch"));
        } catch (co.elastic.clients.elasticsearch._types.ElasticsearchException e) {
          out.append(' ').append(e.status()).append(' ').append(e.error().type());
        }
        answers.add(out.toString());
      }
    }
    assertEquals(answers.get(0), answers.get(1));
    assertTrue(answers.get(1).startsWith("true false [dsl-a, dsl-b] 2 "), answers.get(1));
  }

  private static void assertSameJson(String what, URI nodeUri, String path) throws Exception {
    HttpResponse<String> e = send(nodeUri, "GET", path, null, true);
    HttpResponse<String> a = send(serviceUri, "GET", path, null, true);
    assertEquals(e.statusCode(), a.statusCode(), what + ": " + a.body());
    assertEquals(mediaType(e), mediaType(a), what);
    assertEquals(MAPPER.readTree(e.body()), MAPPER.readTree(a.body()), what);
  }

  private static HttpResponse<String> send(URI base, String method, String path, String body, boolean client)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofMinutes(1))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (client) {
      b.header("Accept", CLIENT_ACCEPT);
    }
    if (body != null) {
      b.header("Content-Type", client ? CLIENT_ACCEPT.replace("+json", path.contains("_msearch") ? "+x-ndjson"
          : "+json") : path.contains("_msearch") ? "application/x-ndjson" : "application/json");
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
