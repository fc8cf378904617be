/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.es;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch._types.aggregations.Aggregate;
import co.elastic.clients.elasticsearch._types.aggregations.CalendarInterval;
import co.elastic.clients.elasticsearch.core.SearchRequest;
import co.elastic.clients.elasticsearch.core.SearchResponse;
import co.elastic.clients.json.JsonData;
import co.elastic.clients.json.JsonpUtils;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest5_client.Rest5ClientTransport;
import co.elastic.clients.transport.rest5_client.low_level.Rest5Client;
import dev.permafrost.fixture.DslDataset;
import dev.permafrost.fixture.LiveEngineNode;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A real Elasticsearch 9.3.3 node ({@link LiveEngineNode}, holding {@link DslDataset}) and the service over that
 * node's snapshot answer the same requests alike: randomized {@code _search} bodies of every supported query and
 * aggregation ({@link DslRequests}: fields, values, bounds, formats, time zones, intervals, nesting, sorts, paging,
 * {@code _source}) sent as raw JSON, the same through the official Java client ({@code elasticsearch-java} 9.3.3, as
 * applications send them: {@code typed_keys} and the compatibility media type), a Grafana-shaped {@code _msearch},
 * {@code _count}, {@code _mapping}, {@code _field_caps} and errors. {@link EsResponses} compares totals, ids in order,
 * sort values, {@code _source}, bucket keys and counts and metric values. The requests come from a fixed seed
 * ({@code -Ddsl.seed=N -Ddsl.count=M} draws others), so a verdict does not change from run to run. The node and the
 * service are {@link NodeAndService}'s, shared with the client suites.
 */
class ElasticsearchApiDifferentialTest {
  private static final long SEED = Long.getLong("dsl.seed", 20261128L);
  private static final int COUNT = Integer.getInteger("dsl.count", 400);
  /** The seeds of {@link ReferenceRequests} (comma-separated), how many requests each, and where the report goes. */
  private static final String REFERENCE_SEEDS = System.getProperty("reference.seeds", "20261129");
  private static final int REFERENCE_COUNT = Integer.getInteger("reference.count", 1000);
  private static final Path REFERENCE_REPORT = Path.of(System.getProperty("reference.report",
      "target/reference-differential.txt"));
  /** Lists the differences (in the report) instead of failing on them: for a run over new seeds. */
  private static final boolean REFERENCE_LIST_ONLY = Boolean.getBoolean("reference.listOnly");
  private static final JsonMapper MAPPER = JsonMapper.builder().build();
  private static LiveEngineNode node;
  private static URI serviceUri;
  private static HttpClient http;
  private static ElasticsearchClient nodeClient;
  private static ElasticsearchClient serviceClient;

  @BeforeAll
  static void start() throws Exception {
    NodeAndService shared = NodeAndService.shared();
    node = shared.node();
    serviceUri = shared.serviceUri();
    http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    nodeClient = client(node.uri());
    serviceClient = client(serviceUri);
  }

  private static ElasticsearchClient client(URI uri) {
    return new ElasticsearchClient(new Rest5ClientTransport(Rest5Client.builder(uri).build(), new JacksonJsonpMapper()));
  }

  @AfterAll
  static void stop() throws Exception {
    for (ElasticsearchClient c : new ElasticsearchClient[] {nodeClient, serviceClient}) {
      if (c != null) {
        c._transport().close();
      }
    }
  }

  @Test
  void randomSearchesAsRawJsonAreAnsweredAsTheNodeAnswersThem() throws Exception {
    List<DslRequests.Request> requests = DslRequests.generate(SEED, COUNT);
    int withHits = 0;
    int withBuckets = 0;
    List<String> mismatches = new ArrayList<>();
    for (DslRequests.Request r : requests) {
      String typed = r.path() + (r.label().hashCode() % 2 == 0 ? "?typed_keys=true" : "");
      HttpResponse<String> expected = send(node.uri(), "POST", typed, r.body());
      assertEquals(200, expected.statusCode(), () -> "the node refused " + r + ": " + expected.body());
      HttpResponse<String> actual = send(serviceUri, "POST", typed, r.body());
      assertEquals(200, actual.statusCode(), () -> "the service refused " + r + ": " + actual.body());
      JsonNode answer = MAPPER.readTree(expected.body());
      try {
        EsResponses.assertSameAnswer(r.toString(), answer, MAPPER.readTree(actual.body()));
      } catch (AssertionError e) {
        mismatches.add(e.getMessage());
      }
      withHits += answer.at("/hits/hits").isEmpty() ? 0 : 1;
      withBuckets += expected.body().contains("\"doc_count\":") ? 1 : 0;
    }
    assertTrue(mismatches.isEmpty(), mismatches.size() + " of " + requests.size() + " requests answered otherwise"
        + " than the node answered them:\n" + String.join("\n", mismatches.subList(0, Math.min(12, mismatches.size()))));
    System.out.printf("ElasticsearchApiDifferentialTest: %d requests (seed %d) answered alike, %d with hits, %d with"
        + " buckets%n", requests.size(), SEED, withHits, withBuckets);
    assertTrue(withHits > requests.size() / 3 && withBuckets > requests.size() / 3,
        "the requests find something: " + withHits + " with hits, " + withBuckets + " with buckets");
  }

  /**
   * A second generator, written from Elasticsearch's reference pages rather than from the translation
   * ({@link ReferenceRequests}): every request a node accepts must be answered alike, scores included
   * ({@link EsResponses#assertSameScoredAnswer}), or refused with a 400 naming a clause docs/elasticsearch-api.md
   * lists as refused. The node's own refusals are dropped and counted; they must stay few, or the generator has
   * drifted from what a node accepts. {@code -Dreference.seeds=1,2,3 -Dreference.count=N} runs other seeds,
   * {@code -Dreference.listOnly=true} lists differences in the report ({@code -Dreference.report}) without failing.
   */
  @Test
  void referenceRequestsAreAnsweredAsTheNodeAnswersThem() throws Exception {
    ReferenceRun run = new ReferenceRun(
        (path, body) -> answer(send(node.uri(), "POST", path, body)),
        (path, body) -> answer(send(serviceUri, "POST", path, body)));
    List<ReferenceRun.Tally> tallies = new ArrayList<>();
    for (String seed : REFERENCE_SEEDS.split(",")) {
      ReferenceRun.Tally tally = run.run(Long.parseLong(seed.trim()), REFERENCE_COUNT);
      System.out.println("ReferenceRequests " + tally.summary());
      tallies.add(tally);
      run.report(tallies, REFERENCE_REPORT);
    }
    System.out.println("ReferenceRequests: report in " + REFERENCE_REPORT.toAbsolutePath());
    for (ReferenceRun.Tally t : tallies) {
      assertTrue(t.rejected().size() <= t.requests() / 20, () -> t.rejected().size() + " of " + t.requests()
          + " requests rejected by the node (seed " + t.seed() + "), first: " + t.rejected().get(0));
      int compared = t.equal() + t.differences().size();
      assertTrue(t.withHits() > compared / 5 && t.withBuckets() > compared / 5, "the requests find something: "
          + t.summary());
      assertTrue(REFERENCE_LIST_ONLY || t.differences().isEmpty(), () -> t.differences().size() + " of " + t.requests()
          + " requests answered otherwise than the node answered them (seed " + t.seed() + "; all in "
          + REFERENCE_REPORT.toAbsolutePath() + "):\n" + String.join("\n",
          t.differences().subList(0, Math.min(8, t.differences().size()))));
    }
  }

  /**
   * Not a check but a tool, run only with {@code -Dreference.replay=<file>}: sends each request of the file (a line
   * {@code POST <path>} or {@code GET <path>}, then a line of JSON body) to the node and to the service and writes
   * both answers to {@code <file>.out}, to narrow a difference down to a minimal request.
   */
  @Test
  @EnabledIfSystemProperty(named = "reference.replay", matches = ".+")
  void replayRequestsOfAFile() throws Exception {
    Path file = Path.of(System.getProperty("reference.replay"));
    List<String> lines = Files.readAllLines(file).stream().filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
    StringBuilder out = new StringBuilder();
    for (int i = 0; i + 1 < lines.size(); i += 2) {
      String[] request = lines.get(i).trim().split(" ", 2);
      String body = lines.get(i + 1).trim();
      out.append(lines.get(i)).append('\n').append(body).append('\n');
      for (URI side : List.of(node.uri(), serviceUri)) {
        HttpResponse<String> r = send(side, request[0], request[1], body);
        out.append(side.equals(serviceUri) ? "  service " : "  node    ").append(r.statusCode()).append(' ')
            .append(r.body()).append('\n');
      }
      out.append('\n');
    }
    Files.writeString(Path.of(file + ".out"), out);
    System.out.println("replayed into " + file + ".out");
  }

  private static ReferenceRun.Answer answer(HttpResponse<String> response) {
    return new ReferenceRun.Answer(response.statusCode(), response.body());
  }

  /** Every third request again through the official Java client, to the node and to the service: what it parses. */
  @Test
  void theOfficialJavaClientReadsTheServiceAsItReadsTheNode() throws Exception {
    List<DslRequests.Request> requests = DslRequests.generate(SEED + 1, COUNT / 3);
    for (DslRequests.Request r : requests) {
      Function<ElasticsearchClient, SearchResponse<JsonData>> search = c -> {
        try {
          return c.search(SearchRequest.of(b -> b.withJson(new StringReader(r.body()))
              .index(List.of(r.indices().split(",")))), JsonData.class);
        } catch (Exception e) {
          throw new AssertionError("the Java client failed on " + r + ": " + e, e);
        }
      };
      assertSameParsed(r.toString(), search.apply(nodeClient), search.apply(serviceClient));
    }
    // and a request built with the client's own builders, as an application writes it
    Function<ElasticsearchClient, SearchResponse<JsonData>> typed = c -> {
      try {
        return c.search(s -> s.index("dsl-*").size(15)
            .query(q -> q.bool(b -> b
                .filter(f -> f.term(t -> t.field("level").value("error")))
                .filter(f -> f.range(x -> x.date(d -> d.field("@timestamp").gte("2024-03-05").lt("2024-03-25")
                    .timeZone("Europe/Berlin"))))
                .should(sh -> sh.match(m -> m.field("message").query("timeout")))
                .mustNot(n -> n.terms(t -> t.field("host").terms(v -> v.value(List.of(
                    FieldValue.of("db-01"))))))))
            .sort(o -> o.field(f -> f.field("@timestamp").order(SortOrder.Desc)))
            .sort(o -> o.field(f -> f.field("seq").order(SortOrder.Asc)))
            .aggregations("per_week", a -> a.dateHistogram(h -> h.field("@timestamp")
                    .calendarInterval(CalendarInterval.Week).timeZone("Europe/Berlin"))
                .aggregations("services", sub -> sub.terms(t -> t.field("service").size(2).missing("none"))))
            .aggregations("latency", a -> a.stats(st -> st.field("latency"))), JsonData.class);
      } catch (Exception e) {
        throw new AssertionError("the Java client failed: " + e, e);
      }
    };
    SearchResponse<JsonData> expected = typed.apply(nodeClient);
    assertTrue(expected.hits().total().value() > 15, "the built request matches something");
    assertSameParsed("built with the client's builders", expected, typed.apply(serviceClient));
  }

  private static void assertSameParsed(String what, SearchResponse<JsonData> expected, SearchResponse<JsonData> actual) {
    if (expected.hits().total() == null) {
      assertNull(actual.hits().total(), what);
    } else {
      assertEquals(expected.hits().total().value(), actual.hits().total().value(), what);
      assertEquals(expected.hits().total().relation(), actual.hits().total().relation(), what);
    }
    List<String> expectedIds = new ArrayList<>();
    List<String> actualIds = new ArrayList<>();
    expected.hits().hits().forEach(h -> expectedIds.add(h.index() + "/" + h.id() + " " + sortValues(h.sort())));
    actual.hits().hits().forEach(h -> actualIds.add(h.index() + "/" + h.id() + " " + sortValues(h.sort())));
    assertEquals(expectedIds, actualIds, what);
    for (int i = 0; i < expected.hits().hits().size(); i++) {
      JsonData e = expected.hits().hits().get(i).source();
      JsonData a = actual.hits().hits().get(i).source();
      assertEquals(e == null ? null : MAPPER.readTree(e.toJson().toString()),
          a == null ? null : MAPPER.readTree(a.toJson().toString()), what + " hit " + i);
    }
    assertEquals(expected.aggregations().keySet(), actual.aggregations().keySet(), what);
    expected.aggregations().forEach((name, agg) -> {
      // each aggregation parsed to the same kind, then compared as the JSON the client would write of it
      assertEquals(agg._kind(), actual.aggregations().get(name)._kind(), what + " aggregation " + name);
      EsResponses.assertSameAnswer(what + " aggregation " + name,
          wrap(MAPPER.readTree(toJson(agg))), wrap(MAPPER.readTree(toJson(actual.aggregations().get(name)))));
    });
  }

  private static List<Object> sortValues(List<FieldValue> values) {
    return values.stream().map(v -> (Object) String.valueOf(v._get())).toList();
  }

  private static String toJson(Aggregate aggregate) {
    return JsonpUtils.toJsonString(aggregate, new JacksonJsonpMapper());
  }

  /** An aggregation as a search answer's only aggregation, with no hits, for {@link EsResponses}. */
  private static JsonNode wrap(JsonNode aggregation) {
    return MAPPER.readTree("{\"hits\": {\"hits\": []}, \"aggregations\": {\"a\": " + aggregation + "}}");
  }

  /**
   * A dashboard one of whose panels names indices that match nothing: the node answers that search 200 with no
   * {@code aggregations} at all, and the other panels as ever; a search over more buckets than
   * {@code search.max_buckets} is refused with the node's {@code too_many_buckets_exception}, alone and within an
   * {@code _msearch}.
   */
  @Test
  void anEmptyPanelAndTooManyBucketsAreAnsweredAsTheNodeAnswersThem() throws Exception {
    String aggs = "{\"size\":0,\"aggs\":{\"h\":{\"date_histogram\":{\"field\":\"@timestamp\",\"fixed_interval\":"
        + "\"1h\"},\"aggs\":{\"t\":{\"terms\":{\"field\":\"host\"}},\"m\":{\"max\":{\"field\":\"bytes\"}}}},"
        + "\"s\":{\"sum\":{\"field\":\"@timestamp\"}}}}";
    // every minute of the dataset's 40 days: 57,600 buckets, most of them empty, which count past 65,536
    String tooMany = "{\"size\":0,\"aggs\":{\"h\":{\"date_histogram\":{\"field\":\"@timestamp\",\"fixed_interval\":"
        + "\"1m\",\"min_doc_count\":0}}}}";
    String ndjson = "{\"index\":\"no-such-*\"}\n" + aggs + "\n{\"index\":\"dsl-*\"}\n" + aggs + "\n"
        + "{\"index\":\"dsl-*\"}\n" + tooMany + "\n";
    HttpResponse<String> expected = send(node.uri(), "POST", "/_msearch", ndjson);
    HttpResponse<String> actual = send(serviceUri, "POST", "/_msearch", ndjson);
    assertEquals(200, expected.statusCode(), expected.body());
    assertEquals(200, actual.statusCode(), actual.body());
    JsonNode e = MAPPER.readTree(expected.body()).get("responses");
    JsonNode a = MAPPER.readTree(actual.body()).get("responses");
    assertEquals(3, a.size(), actual.body());
    for (int i = 0; i < 3; i++) {
      assertEquals(e.get(i).get("status"), a.get(i).get("status"), "search " + i + ": " + a.get(i));
      assertEquals(e.get(i).has("aggregations"), a.get(i).has("aggregations"), "search " + i + ": " + a.get(i));
    }
    assertEquals(e.get(0).at("/hits/total"), a.get(0).at("/hits/total"));
    EsResponses.assertSameAnswer("a panel over indices", e.get(1), a.get(1));
    assertEquals(e.get(1).at("/aggregations/s/value_as_string"), a.get(1).at("/aggregations/s/value_as_string"));
    assertEquals(e.get(2).get("error"), a.get(2).get("error"), "too many buckets");
    // terms with min_doc_count 0: every term of the indices, 0 where none of the matching documents has it
    String zeros = "{\"size\":0,\"query\":{\"bool\":{\"filter\":[{\"term\":{\"host\":\"web-01\"}},{\"term\":"
        + "{\"status\":404}}]}},\"aggs\":{\"h\":{\"terms\":{\"field\":\"host\",\"min_doc_count\":0,\"size\":50}},"
        + "\"s\":{\"terms\":{\"field\":\"status\",\"min_doc_count\":0,\"size\":3}}}}";
    assertEquals(MAPPER.readTree(send(node.uri(), "POST", "/dsl-*/_search", zeros).body()).get("aggregations"),
        MAPPER.readTree(send(serviceUri, "POST", "/dsl-*/_search", zeros).body()).get("aggregations"));
    HttpResponse<String> alone = send(serviceUri, "POST", "/dsl-*/_search", tooMany);
    HttpResponse<String> nodeAlone = send(node.uri(), "POST", "/dsl-*/_search", tooMany);
    assertEquals(nodeAlone.statusCode(), alone.statusCode(), alone.body());
    assertEquals(MAPPER.readTree(nodeAlone.body()), MAPPER.readTree(alone.body()));
  }

  /**
   * Grafana's Elasticsearch data source draws a panel with one {@code _msearch}: a header naming the indices, and a
   * body with a {@code range} on the time field in {@code epoch_millis}, a {@code query_string} filter, and a
   * {@code date_histogram} with a {@code terms} under it; a logs panel adds a sorted search of hits.
   */
  @Test
  void aGrafanaPanelsMsearchIsAnsweredAsTheNodeAnswersIt() throws Exception {
    long from = DslDataset.START.toEpochMilli() + 3 * 86_400_000L;
    long to = from + 9 * 86_400_000L;
    String range = "{\"range\":{\"@timestamp\":{\"gte\":" + from + ",\"lte\":" + to + ",\"format\":\"epoch_millis\"}}}";
    String ndjson = "{\"search_type\":\"query_then_fetch\",\"ignore_unavailable\":true,\"index\":\"dsl-*\"}\n"
        + "{\"size\":0,\"query\":{\"bool\":{\"filter\":[" + range + ",{\"query_string\":{\"analyze_wildcard\":true,"
        + "\"query\":\"level:error OR status:[500 TO 599]\"}}]}},\"aggs\":{\"2\":{\"date_histogram\":{\"field\":"
        + "\"@timestamp\",\"min_doc_count\":0,\"extended_bounds\":{\"min\":" + from + ",\"max\":" + to + "},\"format\":"
        + "\"epoch_millis\",\"fixed_interval\":\"3h\"},\"aggs\":{\"3\":{\"terms\":{\"field\":\"host\",\"size\":3,"
        + "\"order\":{\"_count\":\"desc\"},\"min_doc_count\":1}}}}}}\n"
        + "{\"search_type\":\"query_then_fetch\",\"ignore_unavailable\":true,\"index\":\"dsl-*\"}\n"
        + "{\"size\":50,\"query\":{\"bool\":{\"filter\":[" + range + ",{\"query_string\":{\"analyze_wildcard\":true,"
        + "\"query\":\"*\"}}]}},\"sort\":[{\"@timestamp\":{\"order\":\"desc\",\"unmapped_type\":\"boolean\"}},"
        + "{\"seq\":{\"order\":\"asc\"}}],\"script_fields\":{}}\n";
    String path = "/_msearch?max_concurrent_shard_requests=5";
    HttpResponse<String> expected = send(node.uri(), "POST", path, ndjson);
    HttpResponse<String> actual = send(serviceUri, "POST", path, ndjson);
    assertEquals(200, expected.statusCode(), expected.body());
    assertEquals(200, actual.statusCode(), actual.body());
    JsonNode e = MAPPER.readTree(expected.body()).get("responses");
    JsonNode a = MAPPER.readTree(actual.body()).get("responses");
    assertEquals(2, a.size());
    for (int i = 0; i < 2; i++) {
      assertEquals(200, a.get(i).get("status").asInt(), a.get(i).toString());
      EsResponses.assertSameAnswer("Grafana panel, search " + i, e.get(i), a.get(i));
    }
    assertTrue(e.get(0).at("/aggregations/2/buckets").size() == 73, "9 days of 3 hours, and the last bound");
  }

  /**
   * {@code query_string} date bounds rounded as the node rounds them (a date-only inclusive upper or exclusive lower
   * bound at the day's end, date math), its one-sided ranges, and {@code match} with {@code and} and
   * {@code minimum_should_match}: the same totals and hits as the node's.
   */
  @Test
  void queryStringDatesOneSidedRangesAndMatchWithAndAsTheNode() throws Exception {
    List<String> queries = List.of("@timestamp:[2024-03-22 TO 2024-03-24]", "@timestamp:{2024-03-22 TO 2024-03-24}",
        "@timestamp:{2024-03-22 TO *]", "@timestamp:[2024-03-22 TO 2024-03-24}", "@timestamp:2024-03-22",
        "@timestamp:[2024-03 TO 2024-03-05||+1d]", "day:[2024-03-05 TO 2024-03-07}", "status:>=500", "bytes:<1000",
        "@timestamp:>2024-04-01", "@timestamp:<=2024-03-02 AND level:error", "(status:>300 AND status:<=404)");
    List<String> bodies = new ArrayList<>();
    for (String q : queries) {
      bodies.add("{\"query\": {\"query_string\": {\"query\": " + MAPPER.writeValueAsString(q) + "}}, \"sort\": [\"seq\"]}");
    }
    for (String msm : List.of("1", "2", "\"50%\"", "-1")) {
      bodies.add("{\"query\": {\"match\": {\"message\": {\"query\": \"user login\", \"operator\": \"and\","
          + " \"minimum_should_match\": " + msm + "}}}, \"sort\": [\"seq\"]}");
    }
    bodies.add("{\"query\": {\"term\": {\"status\": 99999999999}}}"); // out of an integer's range: nothing
    for (String body : bodies) {
      HttpResponse<String> e = send(node.uri(), "POST", "/dsl-*/_search", body);
      HttpResponse<String> a = send(serviceUri, "POST", "/dsl-*/_search", body);
      assertEquals(200, e.statusCode(), e.body());
      assertEquals(200, a.statusCode(), body + ": " + a.body());
      EsResponses.assertSameAnswer(body, MAPPER.readTree(e.body()), MAPPER.readTree(a.body()));
    }
  }

  /**
   * Scores are the node's (Elasticsearch's BM25 scale, k1 + 1 times Lucene's), within a relative 1e-6: each hit's
   * {@code _score} under a sort on {@code _score} (printed there, as the node prints it), and {@code max_score}.
   */
  @Test
  void scoresAreTheNodes() throws Exception {
    List<String> queries = List.of("{\"match\": {\"message\": \"timeout user\"}}",
        "{\"match\": {\"message\": {\"query\": \"connection timeout\", \"operator\": \"and\"}}}",
        "{\"match_phrase\": {\"message\": \"user login\"}}",
        "{\"multi_match\": {\"query\": \"login\", \"fields\": [\"message^2\", \"host\"]}}",
        "{\"bool\": {\"must\": [{\"match\": {\"message\": \"disk cache\"}}], \"filter\": [{\"term\":"
            + " {\"level\": \"warn\"}}], \"should\": [{\"term\": {\"host\": \"web-01\"}}]}}",
        "{\"query_string\": {\"query\": \"message:(disk OR cache) AND level:warn\"}}",
        "{\"match_all\": {}}");
    for (String q : queries) {
      String sorted = "{\"size\": 20, \"query\": " + q + ", \"sort\": [\"_score\", {\"seq\": \"asc\"}]}";
      JsonNode e = MAPPER.readTree(send(node.uri(), "POST", "/dsl-*/_search", sorted).body()).at("/hits");
      JsonNode a = MAPPER.readTree(send(serviceUri, "POST", "/dsl-*/_search", sorted).body()).at("/hits");
      assertEquals(e.get("hits").size(), a.get("hits").size(), q + ": " + a);
      assertTrue(e.get("hits").size() > 0, q);
      for (int i = 0; i < e.get("hits").size(); i++) {
        JsonNode eh = e.get("hits").get(i);
        JsonNode ah = a.get("hits").get(i);
        assertEquals(eh.get("_id"), ah.get("_id"), q + " hit " + i);
        assertTrue(ah.get("_score").isNumber(), q + " hit " + i + ": the score printed, as the node prints it: " + ah);
        assertSameScore(q + " hit " + i, eh.get("_score").doubleValue(), ah.get("_score").doubleValue());
      }
      String plain = "{\"size\": 3, \"query\": " + q + "}";
      JsonNode em = MAPPER.readTree(send(node.uri(), "POST", "/dsl-*/_search", plain).body()).at("/hits/max_score");
      JsonNode am = MAPPER.readTree(send(serviceUri, "POST", "/dsl-*/_search", plain).body()).at("/hits/max_score");
      assertSameScore(q + " max_score", em.doubleValue(), am.doubleValue());
    }
  }

  /**
   * Paging with {@code search_after} after a keyword sort (documents without the keyword last, {@code null} in their
   * sort values, and a page that starts after one of them), after a date sort from a date string, and a pattern that
   * matches no index searched with a sort and aggregations: as the node answers.
   */
  @Test
  void searchAfterKeywordsAndPatternsThatMatchNothingAsTheNode() throws Exception {
    for (String sort : List.of("[{\"service\": \"asc\"}, {\"seq\": \"asc\"}]",
        "[{\"service\": \"desc\"}, {\"host\": \"asc\"}, {\"seq\": \"desc\"}]")) {
      String after = null;
      int pages = 0;
      while (true) {
        String body = "{\"size\": 1000, \"_source\": false, \"sort\": " + sort
            + (after == null ? "" : ", \"search_after\": " + after) + "}";
        HttpResponse<String> e = send(node.uri(), "POST", "/dsl-*/_search", body);
        HttpResponse<String> a = send(serviceUri, "POST", "/dsl-*/_search", body);
        assertEquals(200, e.statusCode(), e.body());
        assertEquals(200, a.statusCode(), body + ": " + a.body());
        JsonNode eb = MAPPER.readTree(e.body());
        EsResponses.assertSameAnswer("page " + pages + " of " + body, eb, MAPPER.readTree(a.body()));
        JsonNode hits = eb.at("/hits/hits");
        if (hits.isEmpty()) {
          break;
        }
        after = hits.get(hits.size() - 1).get("sort").toString();
        pages++;
      }
      assertTrue(pages >= 4, "paged through every document: " + pages);
    }
    for (String[] request : new String[][] {
        {"/dsl-*/_search", "{\"size\": 5, \"sort\": [{\"@timestamp\": \"asc\"}, {\"seq\": \"asc\"}],"
            + " \"search_after\": [\"2024-03-05\", 100]}"},
        {"/dsl-*/_search", "{\"size\": 5, \"sort\": [{\"service\": \"asc\"}, {\"seq\": \"asc\"}],"
            + " \"search_after\": [null, 100]}"},
        {"/no-such-*/_search", "{\"sort\": [{\"host\": \"asc\"}]}"},
        {"/no-such-*/_search", "{\"sort\": [\"no_field\"], \"aggs\": {\"h\": {\"terms\": {\"field\": \"host\"}}}}"}}) {
      HttpResponse<String> e = send(node.uri(), "POST", request[0], request[1]);
      HttpResponse<String> a = send(serviceUri, "POST", request[0], request[1]);
      assertEquals(200, e.statusCode(), e.body());
      assertEquals(200, a.statusCode(), request[1] + ": " + a.body());
      JsonNode eb = MAPPER.readTree(e.body());
      JsonNode ab = MAPPER.readTree(a.body());
      EsResponses.assertSameAnswer(request[0] + " " + request[1], eb, ab);
      assertEquals(eb.at("/hits/max_score"), ab.at("/hits/max_score"), request[1]);
      assertEquals(eb.has("aggregations"), ab.has("aggregations"), request[1]);
    }
  }

  /**
   * Empty answers' {@code max_score} where the node's pre-filter skips every shard, some, or runs not at all (one
   * shard, a sort on the score, a date range inside a {@code query_string}), and {@code query_string} terms in a row on
   * a keyword field, one value on the node: the same totals and {@code max_score} as the node's.
   */
  @Test
  void emptyAnswersAfterThePreFilterAndTermsInARowAsTheNode() throws Exception {
    String outside = "{\"range\": {\"@timestamp\": {\"lt\": \"2024-02-01\"}}}";
    String[][] requests = {
        {"/dsl-*/_search", "{\"query\": {\"match_none\": {}}, \"sort\": [{\"latency\": {\"missing\": -1}}]}"},
        {"/dsl-*/_search", "{\"query\": {\"match_none\": {}}, \"sort\": [\"_doc\"]}"},
        {"/dsl-b/_search", "{\"query\": {\"match_none\": {}}, \"sort\": [\"seq\"]}"},
        {"/dsl-*/_search", "{\"query\": " + outside + ", \"sort\": [\"seq\"]}"},
        {"/dsl-b/_search", "{\"query\": " + outside + ", \"sort\": [\"seq\"]}"},
        {"/dsl-*/_search", "{\"query\": {\"bool\": {\"should\": [" + outside + "]}}, \"sort\": [\"seq\"]}"},
        {"/dsl-a,dsl-b/_search", "{\"query\": {\"range\": {\"@timestamp\": {\"lt\": \"2024-03-01T00:30:00Z\"}}},"
            + " \"sort\": [\"seq\"], \"size\": 0}"},
        {"/dsl-*/_search", "{\"query\": {\"range\": {\"seq\": {\"gte\": 5000}}}, \"sort\": [\"seq\"]}"},
        {"/dsl-*/_search", "{\"query\": {\"query_string\": {\"query\": \"@timestamp:[2020-01-01 TO 2020-02-01]\"}},"
            + " \"sort\": [\"seq\"]}"},
        {"/dsl-*/_search", "{\"query\": {\"dis_max\": {\"queries\": [{\"match_none\": {}}]}}, \"sort\": [\"seq\"]}"},
        {"/dsl-*/_search", "{\"query\": {\"query_string\": {\"query\": \"host:(web-01 web-02) OR level:(error warn)"
            + " OR level:(info OR debug)\"}}, \"track_total_hits\": true, \"sort\": [\"seq\"]}"},
        {"/dsl-*/_search", "{\"query\": {\"query_string\": {\"default_field\": \"level\", \"query\":"
            + " \"NOT (error warn) AND (error +warn) OR message:(user login)\"}}, \"track_total_hits\": true,"
            + " \"sort\": [\"seq\"]}"}};
    for (String[] request : requests) {
      HttpResponse<String> e = send(node.uri(), "POST", request[0], request[1]);
      HttpResponse<String> a = send(serviceUri, "POST", request[0], request[1]);
      assertEquals(200, e.statusCode(), e.body());
      assertEquals(200, a.statusCode(), request[1] + ": " + a.body());
      JsonNode eb = MAPPER.readTree(e.body());
      JsonNode ab = MAPPER.readTree(a.body());
      EsResponses.assertSameAnswer(request[0] + " " + request[1], eb, ab);
      assertEquals(eb.at("/hits/total"), ab.at("/hits/total"), request[1]);
      assertEquals(eb.at("/hits/max_score"), ab.at("/hits/max_score"), request[1]);
    }
  }

  private static void assertSameScore(String what, double expected, double actual) {
    assertTrue(Math.abs(expected - actual) <= 1e-6 * Math.abs(expected), what + ": the node scores " + expected
        + ", the service " + actual);
  }

  /**
   * A sort's {@code format} (dates) and {@code numeric_type}: the node's sort values (formatted strings, nanoseconds,
   * doubles, a missing value's {@code null}, {@code 0}, {@code "Infinity"}), and its next page after the last hit's
   * values as the node showed them; and its refusals, as the node's.
   */
  @Test
  void sortFormatsAndNumericTypesAsTheNode() throws Exception {
    String noBytes = "\"query\": {\"bool\": {\"must_not\": {\"exists\": {\"field\": \"bytes\"}}}}, ";
    String[] sorts = {
        "{\"@timestamp\": {\"order\": \"asc\", \"format\": \"strict_date_optional_time\"}}",
        "{\"@timestamp\": {\"order\": \"desc\", \"format\": \"yyyy-MM-dd'T'HH:mm\"}}",
        "{\"@timestamp\": {\"order\": \"desc\", \"format\": \"epoch_millis\"}}",
        "{\"@timestamp\": {\"format\": \"epoch_second\"}}",
        "{\"day\": {\"order\": \"desc\", \"format\": \"yyyy/MM/dd\"}}",
        "{\"@timestamp\": {\"order\": \"asc\", \"numeric_type\": \"date_nanos\"}}",
        "{\"@timestamp\": {\"order\": \"desc\", \"numeric_type\": \"date_nanos\","
            + " \"format\": \"strict_date_optional_time_nanos\"}}",
        "{\"@timestamp\": {\"order\": \"desc\", \"numeric_type\": \"long\", \"format\": \"basic_date_time\"}}",
        "{\"@timestamp\": {\"numeric_type\": \"double\", \"format\": \"strict_date_optional_time\"}}",
        "{\"bytes\": {\"order\": \"desc\", \"numeric_type\": \"double\"}}",
        "{\"status\": {\"numeric_type\": \"long\"}}",
        "{\"status\": {\"order\": \"desc\", \"numeric_type\": \"double\"}}",
        "{\"user.age\": {\"numeric_type\": \"date\"}}",
        "{\"latency\": {\"order\": \"desc\", \"numeric_type\": \"double\"}}",
        "{\"seq\": {\"order\": \"desc\", \"numeric_type\": \"date\"}}"};
    int compared = 0;
    for (String sort : sorts) {
      for (String query : List.of("", noBytes)) {
        String body = "{" + query + "\"size\": 7, \"_source\": false, \"sort\": [" + sort + ", {\"seq\": \"asc\"}]}";
        JsonNode first = MAPPER.readTree(send(node.uri(), "POST", "/dsl-*/_search", body).body());
        EsResponses.assertSameAnswer(body, first,
            MAPPER.readTree(send(serviceUri, "POST", "/dsl-*/_search", body).body()));
        JsonNode hits = first.at("/hits/hits");
        assertEquals(7, hits.size(), body + ": " + first);
        // the next page, after the last hit's values as the node showed them
        String next = body.substring(0, body.length() - 1) + ", \"search_after\": " + hits.get(6).get("sort") + "}";
        EsResponses.assertSameAnswer(next, MAPPER.readTree(send(node.uri(), "POST", "/dsl-*/_search", next).body()),
            MAPPER.readTree(send(serviceUri, "POST", "/dsl-*/_search", next).body()));
        compared += 2;
      }
    }
    assertEquals(4 * sorts.length, compared);
    for (String bad : List.of("{\"host\": {\"format\": \"yyyy\"}}", "{\"seq\": {\"format\": \"0.0\"}}",
        "{\"host\": {\"numeric_type\": \"long\"}}", "{\"seq\": {\"numeric_type\": \"short\"}}",
        "{\"seq\": {\"numeric_type\": \"date_nanos\"}}", "{\"user.age\": {\"format\": \"yyyy\", \"numeric_type\": \"date\"}}")) {
      String body = "{\"sort\": [" + bad + "]}";
      HttpResponse<String> e = send(node.uri(), "POST", "/dsl-*/_search", body);
      HttpResponse<String> a = send(serviceUri, "POST", "/dsl-*/_search", body);
      assertEquals(400, e.statusCode(), body + ": " + e.body());
      assertEquals(e.statusCode(), a.statusCode(), body + ": " + a.body());
      JsonNode eb = MAPPER.readTree(e.body());
      JsonNode ab = MAPPER.readTree(a.body());
      EsResponses.assertSameAnswer(body, eb, ab);
      assertEquals(eb.at("/error/root_cause/0/type"), ab.at("/error/root_cause/0/type"), body + ": " + a.body());
    }
  }

  /**
   * {@code stored_fields} as the node answers it (given at all, even {@code []}: no {@code _source} unless asked for;
   * {@code _none_}: no {@code _id} either, and refused beside a requested source), with {@code fields}, and an empty
   * {@code runtime_mappings} and {@code script_fields} as Kibana sends them.
   */
  @Test
  void storedFieldsAndEmptyRuntimeMappingsAsTheNode() throws Exception {
    String[] options = {"\"stored_fields\": []", "\"stored_fields\": [\"*\"]", "\"stored_fields\": \"*\"",
        "\"stored_fields\": [\"*\"], \"_source\": true", "\"stored_fields\": [\"host\"], \"_source\": [\"host\", \"seq\"]",
        "\"stored_fields\": \"_none_\"", "\"stored_fields\": [\"_none_\"], \"_source\": false",
        "\"stored_fields\": [\"*\"], \"fields\": [\"host\", {\"field\": \"@timestamp\", \"format\": \"epoch_millis\"}]",
        "\"runtime_mappings\": {}, \"script_fields\": {}, \"_source\": false"};
    for (String option : options) {
      String body = "{" + option + ", \"size\": 4, \"sort\": [{\"seq\": \"asc\"}]}";
      JsonNode e = MAPPER.readTree(send(node.uri(), "POST", "/dsl-*/_search", body).body());
      JsonNode a = MAPPER.readTree(send(serviceUri, "POST", "/dsl-*/_search", body).body());
      EsResponses.assertSameAnswer(body, e, a);
      assertEquals(4, e.at("/hits/hits").size(), body + ": " + e);
      for (int i = 0; i < 4; i++) {
        JsonNode eh = e.at("/hits/hits/" + i);
        JsonNode ah = a.at("/hits/hits/" + i);
        assertEquals(eh.has("_id"), ah.has("_id"), body);
        assertEquals(eh.has("_source"), ah.has("_source"), body);
        assertEquals(eh.get("fields"), ah.get("fields"), body);
      }
    }
    String refused = "{\"stored_fields\": \"_none_\", \"_source\": true}";
    HttpResponse<String> e = send(node.uri(), "POST", "/dsl-*/_search", refused);
    HttpResponse<String> a = send(serviceUri, "POST", "/dsl-*/_search", refused);
    assertEquals(400, e.statusCode(), e.body());
    assertEquals(e.statusCode(), a.statusCode(), a.body());
    EsResponses.assertSameAnswer(refused, MAPPER.readTree(e.body()), MAPPER.readTree(a.body()));
  }

  @Test
  void countsMappingsFieldCapsAndErrorsAsTheNodeGivesThem() throws Exception {
    String query = "{\"query\": {\"range\": {\"bytes\": {\"gte\": 1000, \"lt\": 50000}}}}";
    assertEquals(MAPPER.readTree(send(node.uri(), "POST", "/dsl-*/_count", query).body()).get("count"),
        MAPPER.readTree(send(serviceUri, "POST", "/dsl-*/_count", query).body()).get("count"));

    JsonNode expectedMapping = MAPPER.readTree(send(node.uri(), "GET", "/dsl-a/_mapping", null).body());
    JsonNode actualMapping = MAPPER.readTree(send(serviceUri, "GET", "/dsl-a/_mapping", null).body());
    assertEquals(expectedMapping.at("/dsl-a/mappings/properties"), actualMapping.at("/dsl-a/mappings/properties"));

    JsonNode expectedCaps = MAPPER.readTree(send(node.uri(), "GET", "/dsl-*/_field_caps?fields=*", null).body());
    JsonNode actualCaps = MAPPER.readTree(send(serviceUri, "GET", "/dsl-*/_field_caps?fields=*", null).body());
    assertEquals(expectedCaps.get("indices"), actualCaps.get("indices"));
    int compared = 0;
    for (var field : expectedCaps.get("fields").properties()) {
      if (field.getKey().startsWith("_")) {
        continue; // metadata fields: the service lists the mapped ones
      }
      for (var type : field.getValue().properties()) {
        JsonNode mine = actualCaps.at("/fields/" + field.getKey().replace("/", "~1") + "/" + type.getKey());
        assertTrue(!mine.isMissingNode(), field.getKey() + " as " + type.getKey() + ": " + actualCaps);
        for (String key : List.of("type", "searchable", "aggregatable")) {
          assertEquals(type.getValue().get(key), mine.get(key), field.getKey() + " " + key);
        }
        compared++;
      }
    }
    assertTrue(compared >= 14, "every mapped field compared: " + compared);
    // an object is listed as the parent of a field that matches, never for matching itself
    for (String fields : List.of("user.*", "user", "user*", "*.name", "us*.age,bytes", "message*")) {
      JsonNode e = MAPPER.readTree(send(node.uri(), "GET", "/dsl-*/_field_caps?fields=" + fields, null).body());
      JsonNode a = MAPPER.readTree(send(serviceUri, "GET", "/dsl-*/_field_caps?fields=" + fields, null).body());
      Map<String, List<String>> expectedTypes = new TreeMap<>();
      e.get("fields").properties().forEach(f -> {
        if (!f.getKey().startsWith("_")) {
          List<String> types = new ArrayList<>();
          f.getValue().properties().forEach(t -> types.add(t.getKey()));
          expectedTypes.put(f.getKey(), types);
        }
      });
      Map<String, List<String>> actualTypes = new TreeMap<>();
      a.get("fields").properties().forEach(f -> {
        List<String> types = new ArrayList<>();
        f.getValue().properties().forEach(t -> types.add(t.getKey()));
        actualTypes.put(f.getKey(), types);
      });
      assertEquals(expectedTypes, actualTypes, "_field_caps?fields=" + fields);
    }

    for (String[] bad : new String[][] {{"/no-such-index/_search", "{}"}, {"/dsl-*/_search", "{\"qeury\": {}}"},
        {"/dsl-*/_search", "{\"query\": {\"term\": {}}}"}, {"/dsl-*/_search", "{\"size\": 10001}"},
        {"/dsl-*/_search", "{\"query\": {\"term\": {\"status\": \"abc\"}}}"},
        {"/dsl-*/_search", "{\"query\": {\"terms\": {\"status\": [99999999999, 200]}}}"},
        {"/dsl-*/_search", "{\"query\": {\"range\": {\"@timestamp\": {\"gte\": \"xx\"}}}}"},
        {"/dsl-*/_search", "{\"query\": {\"match_all\": {}},}"}, {"/dsl-*/_search", "{\"query\": {\"term\":"}}) {
      HttpResponse<String> e = send(node.uri(), "POST", bad[0], bad[1]);
      HttpResponse<String> a = send(serviceUri, "POST", bad[0], bad[1]);
      assertEquals(e.statusCode(), a.statusCode(), bad[0] + " " + bad[1] + ": " + a.body());
      JsonNode eb = MAPPER.readTree(e.body());
      JsonNode ab = MAPPER.readTree(a.body());
      EsResponses.assertSameAnswer(bad[0] + " " + bad[1], eb, ab);
      assertEquals(eb.at("/error/root_cause/0/type"), ab.at("/error/root_cause/0/type"), a.body());
      assertEquals("Elasticsearch", a.headers().firstValue("X-Elastic-Product").orElse(null));
    }
  }

  private static HttpResponse<String> send(URI base, String method, String path, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofMinutes(1))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("Content-Type", path.contains("_msearch") ? "application/x-ndjson" : "application/json");
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
