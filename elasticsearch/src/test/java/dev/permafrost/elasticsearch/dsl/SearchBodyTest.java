/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.elasticsearch.IndexMapping;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.SortField;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;

/**
 * A request parsed into its model ({@link SearchBody}) with no search run: every part of the body and of the URL in
 * its typed place, and every refusal a 400 naming the key, parameter, clause or field at fault.
 */
class SearchBodyTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final IndexShards LOGS = index("logs", """
      {"properties": {"status": {"type": "long"}, "host": {"type": "keyword"}, "message": {"type": "text"},
       "@timestamp": {"type": "date"}, "bytes": {"type": "double"}}}""");

  private static IndexShards index(String name, String mapping) {
    try {
      return new IndexShards(name, List.of(name + "-shard"), IndexMapping.of(JSON.readTree(mapping)));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static SearchBody search(String body, Map<String, String> parameters) throws Exception {
    return SearchBody.search(body == null ? null : JSON.readTree(body), parameters, () -> List.of(LOGS));
  }

  private static DslException refused(String body, Map<String, String> parameters) {
    return assertThrows(DslException.class, () -> search(body, parameters));
  }

  @Test
  void aRequestIsReadIntoItsModel() throws Exception {
    SearchBody b = search("""
        {"query": {"bool": {"filter": [{"term": {"status": 404}}]}}, "from": 0, "size": 5,
         "sort": [{"@timestamp": {"order": "desc"}}, "host"], "search_after": ["2024-02-01T00:00:00Z", "a"],
         "track_total_hits": 100, "_source": ["host"], "timeout": "2s",
         "aggs": {"hosts": {"terms": {"field": "host"}}}}""", Map.of("typed_keys", "true"));
    assertEquals(List.of(LOGS), b.indices());
    assertTrue(b.queries().query("logs-shard") instanceof BooleanQuery, b.queries().query("logs-shard").toString());
    assertEquals(0, b.from());
    assertEquals(5, b.size());
    assertTrue(b.fetchesHits());
    assertEquals(100, b.trackTotalHits());
    assertEquals(Duration.ofSeconds(2), b.timeout());
    assertTrue(b.typedKeys());
    assertFalse(b.totalAsInt());
    assertEquals(2, b.sort().fields().size());
    assertEquals("@timestamp", b.sort().fields().get(0).getField());
    assertTrue(b.sort().fields().get(0).getReverse());
    assertTrue(b.sort().byField());
    assertArrayEquals(new Object[] {1706745600000L, new BytesRef("a")}, b.searchAfter());
    assertTrue(b.source().fetches());
    ObjectNode source = (ObjectNode) JSON.readTree("{\"host\": \"h\", \"status\": 1}");
    assertEquals(JSON.readTree("{\"host\": \"h\"}"), b.source().apply(source));
    assertTrue(b.aggs() != null);
  }

  @Test
  void urlParametersStandInForTheBody() throws Exception {
    SearchBody b = search(null, Map.of("q", "host:a", "size", "0", "sort", "status:asc", "track_total_hits", "true",
        "_source", "false", "rest_total_hits_as_int", "true", "timeout", "500ms"));
    assertEquals(0, b.size());
    assertFalse(b.fetchesHits());
    assertEquals(-1, b.trackTotalHits());
    assertFalse(b.source().fetches());
    assertTrue(b.totalAsInt());
    assertEquals(Duration.ofMillis(500), b.timeout());
    assertEquals("status", b.sort().fields().getFirst().getField());
    assertFalse(b.sort().fields().getFirst().getReverse());
    assertFalse(b.queries().query("logs-shard") instanceof MatchAllDocsQuery);
  }

  @Test
  void defaultsAreElasticsearchs() throws Exception {
    SearchBody b = search("{}", Map.of());
    assertEquals(0, b.from());
    assertEquals(10, b.size());
    assertEquals(10_000, b.trackTotalHits());
    assertNull(b.aggs());
    assertNull(b.searchAfter());
    assertNull(b.timeout());
    assertNull(b.sort().lucene());
    assertEquals(-1, b.sort().scoreAt());
    assertTrue(b.queries().query("logs-shard") instanceof MatchAllDocsQuery);
  }

  @Test
  void aNextPageFollowsTheLastSortValues() throws Exception {
    SearchBody first = search("{\"sort\": [\"status\", \"host\"], \"size\": 3, \"aggs\": {\"h\": {\"terms\":"
        + " {\"field\": \"host\"}}}}", Map.of());
    SearchBody next = first.next(new Object[] {404L, new BytesRef("b")});
    assertSame(first.queries(), next.queries());
    assertEquals(first.indices(), next.indices());
    assertSame(first.sort(), next.sort());
    assertEquals(3, next.size());
    assertEquals(0, next.from());
    assertNull(next.aggs());
    assertArrayEquals(new Object[] {404L, new BytesRef("b")}, next.searchAfter());
    assertThrows(IllegalArgumentException.class, () -> first.next(new Object[] {404L}));
    assertThrows(IllegalArgumentException.class, () -> search("{}", Map.of()).next(new Object[0]));
  }

  @Test
  void aSortByScoreKeepsScores() throws Exception {
    SearchBody b = search("{\"sort\": [\"_score\", {\"status\": \"desc\"}]}", Map.of());
    assertEquals(SortField.Type.SCORE, b.sort().fields().getFirst().getType());
    assertEquals(0, b.sort().scoreAt());
  }

  @Test
  void noIndexParsesOnlyWhatTheNodeParses() throws Exception {
    SearchBody b = SearchBody.search(JSON.readTree("{\"sort\": \"nowhere\", \"aggs\": {\"a\": {\"terms\": {\"field\":"
        + " \"nowhere\"}}}}"), Map.of(), List::of);
    assertTrue(b.indices().isEmpty());
    assertTrue(b.queries().shards().isEmpty());
    assertEquals(new QueryNode.MatchAll(1f), b.query()); // no query: all, parsed all the same
    assertNull(b.aggs());
    assertNull(b.sort().lucene());
  }

  @Test
  void refusalsNameWhatIsAtFault() {
    assertMessage(refused("{\"highlight\": {\"type\": \"plain\", \"fields\": {\"message\": {}}}}", Map.of()),
        "[highlight] type [plain]");
    assertMessage(refused("{\"docvalue_fields\": [\"message\"]}", Map.of()), "Fielddata is disabled on [message]");
    assertMessage(refused("{\"querry\": {}}", Map.of()), "Unknown key [querry]");
    assertMessage(refused(null, Map.of("sise", "3")), "unrecognized parameter: [sise]");
    assertMessage(refused("{\"size\": \"many\"}", Map.of()), "[size] must be an integer, got [many]");
    assertMessage(refused("{\"from\": -1}", Map.of()), "[from] and [size] must be at least 0");
    assertMessage(refused("{\"from\": 9000, \"size\": 2000}", Map.of()), "Result window is too large");
    assertMessage(refused("{\"track_total_hits\": -5}", Map.of()), "[track_total_hits] must be positive");
    assertMessage(refused("{\"track_total_hits\": \"some\"}", Map.of()), "[track_total_hits] must be true, false");
    assertMessage(refused("{\"timeout\": \"soon\"}", Map.of()), "[timeout] with value [soon]");
    assertMessage(refused("{\"sort\": \"nowhere\"}", Map.of()), "No mapping found for [nowhere]");
    assertMessage(refused("{\"sort\": {\"status\": \"up\"}}", Map.of()), "order of [status] must be asc or desc");
    assertMessage(refused("{\"sort\": {\"status\": {\"mode\": \"min\"}}}", Map.of()), "option [mode] of [status]");
    assertMessage(refused("{\"search_after\": [1]}", Map.of()), "[search_after] needs a [sort]");
    assertMessage(refused("{\"sort\": [\"status\"], \"search_after\": [1, 2]}", Map.of()),
        "[search_after] has 2 value(s) but the sort has 1 field(s)");
    assertMessage(refused("{\"sort\": [\"status\"], \"search_after\": [\"x\"]}", Map.of()),
        "[search_after] value [x] does not fit the sort on [status]");
    assertMessage(refused("{\"sort\": [\"status\"], \"search_after\": [1], \"from\": 1}", Map.of()),
        "[from] parameter must be set to 0 when [search_after] is used");
    assertMessage(refused("{\"aggs\": {\"words\": {\"terms\": {\"field\": \"message\"}}}}", Map.of()),
        "(aggregation [words], field [message])");
    assertMessage(refused("{\"aggs\": {\"h\": {\"histogram\": {\"field\": \"status\"}}}}", Map.of()),
        "[interval] must be set for histogram aggregation [h]");
    assertMessage(refused("{\"aggs\": {\"t\": {\"terms\": {\"field\": \"host\", \"colour\": 1}}}}", Map.of()),
        "[terms] aggregation [t]: unknown or unsupported parameter [colour]");
    assertMessage(refused("{\"query\": {\"frobnicate\": {}}}", Map.of()), "frobnicate");
    for (DslException e : List.of(refused("{\"querry\": {}}", Map.of()), refused(null, Map.of("sise", "3")))) {
      assertEquals(400, e.status());
    }
  }

  @Test
  void aCountTakesAQueryOnly() throws Exception {
    SearchBody b = SearchBody.count(JSON.readTree("{\"query\": {\"term\": {\"host\": \"a\"}}}"),
        Map.of("timeout", "1s"), () -> List.of(LOGS));
    assertFalse(b.fetchesHits());
    assertNull(b.aggs());
    assertEquals(Duration.ofSeconds(1), b.timeout());
    JsonNode withSize = JSON.readTree("{\"size\": 1}");
    assertMessage(assertThrows(DslException.class, () -> SearchBody.count(withSize, Map.of(), () -> List.of(LOGS))),
        "request does not support [size]");
    assertMessage(assertThrows(DslException.class, () -> SearchBody.count(null, Map.of("size", "1"),
        () -> List.of(LOGS))), "request [_count] contains unrecognized parameter: [size]");
  }

  @Test
  void theBodysKeysAreCheckedBeforeTheIndicesAreResolved() {
    DslException e = assertThrows(DslException.class, () -> SearchBody.search(JSON.readTree("{\"nope\": 1}"),
        Map.of(), () -> {
          throw new AssertionError("resolved before the body was checked");
        }));
    assertMessage(e, "Unknown key [nope]");
  }

  private static void assertMessage(DslException e, String part) {
    assertTrue(e.getMessage().contains(part), () -> "expected [" + part + "] in: " + e.getMessage());
  }
}
