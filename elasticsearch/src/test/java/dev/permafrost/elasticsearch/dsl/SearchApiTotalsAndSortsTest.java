/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.SharedRegionCache;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Totals and sorts as a 9.3.3 node answers them (issue 54; each expectation checked against the live node's answer to
 * the same request on the differential test's indices): {@code track_total_hits} 0 and false, a sort's
 * {@code missing} value, and a sort on the score alone.
 */
class SearchApiTotalsAndSortsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path tmp;
  private SharedRegionCache cache;
  private Catalog catalog;
  private SearchApi api;

  @BeforeEach
  void setUp() throws Exception {
    SnapshotRepository repo = SnapshotRepository.open(FileSystemBlobStore.open(tmp.resolve("repo")));
    try (ByteBuffersDirectory d = new ByteBuffersDirectory()) {
      try (IndexWriter w = new IndexWriter(d, new IndexWriterConfig())) {
        w.addDocument(doc("a", 5L, "timeout timeout"));
        w.addDocument(doc("b", null, "timeout"));
        w.addDocument(doc("c", -3L, "login"));
        w.addDocument(doc("d", 12L, "timeout login"));
      }
      repo.createSnapshot("t", d);
    }
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(16 << 20).regionSize(1 << 20).build();
    catalog = Catalog.builder(cache).build();
    catalog.mount("t", repo, "t");
    catalog.mount("t-again", repo, "t"); // the second shard of "two", as the node's pre-filter needs two
    IndexMapping mapping = IndexMapping.of(JSON.readTree("{\"properties\": {\"n\": {\"type\": \"long\"},"
        + " \"at\": {\"type\": \"date\"}, \"msg\": {\"type\": \"text\"}, \"x\": {\"type\": \"double\"},"
        + " \"ns\": {\"type\": \"date_nanos\"}, \"f\": {\"type\": \"float\"},"
        + " \"obj\": {\"properties\": {\"kept\": {\"type\": \"keyword\", \"store\": true}}}}}"));
    api = new SearchApi(catalog, () -> Map.of("t", new SearchApi.Index("t", List.of("t"), mapping),
        "two", new SearchApi.Index("two", List.of("t", "t-again"), mapping)));
  }

  @AfterEach
  void tearDown() throws Exception {
    catalog.close();
    cache.close();
  }

  private static Document doc(String id, Long n, String msg) {
    Document d = new Document();
    d.add(new StoredField("_id", id));
    if (n != null) {
      d.add(new LongPoint("n", n));
      d.add(new SortedNumericDocValuesField("n", n));
      d.add(new LongPoint("at", 1_700_000_000_000L + n));
      d.add(new SortedNumericDocValuesField("at", 1_700_000_000_000L + n));
    }
    d.add(new TextField("msg", msg, Field.Store.NO));
    return d;
  }

  private ObjectNode search(String body, Map<String, String> parameters) throws Exception {
    return api.search("t", JSON.readTree(body), parameters);
  }

  /** A search of the index of two shards, where the node's pre-filter runs. */
  private ObjectNode searchTwo(String body, Map<String, String> parameters) throws Exception {
    return api.search("two", JSON.readTree(body), parameters);
  }

  @Test
  void aTotalTrackedUpToZeroIsZeroAtLeast() throws Exception {
    for (String size : List.of("0", "2")) {
      ObjectNode r = search("{\"size\": " + size + ", \"track_total_hits\": 0}", Map.of());
      assertEquals("{\"value\":0,\"relation\":\"gte\"}", r.at("/hits/total").toString(), r.toString());
    }
    assertTrue(search("{\"size\": 1, \"track_total_hits\": false}", Map.of()).at("/hits/total").isMissingNode());
  }

  @Test
  void aSearchForHitsThatFindsNoneCountedThemAll() throws Exception {
    ObjectNode none = search("{\"size\": 2, \"query\": {\"term\": {\"n\": 99}}, \"track_total_hits\": 0}", Map.of());
    assertEquals("{\"value\":0,\"relation\":\"eq\"}", none.at("/hits/total").toString(), none.toString());
    ObjectNode aggregationsOnly = search("{\"size\": 0, \"query\": {\"term\": {\"n\": 99}}, \"track_total_hits\": 0}",
        Map.of());
    assertEquals("gte", aggregationsOnly.at("/hits/total/relation").asText(), aggregationsOnly.toString());
  }

  /**
   * {@code max_score} as the node's (checked on 9.3.3): the best score of all hits, those before {@code from} too; 0.0
   * where its pre-filter, run for a search of more than one shard sorted first on a field, skipped every shard (a
   * query it rewrites to match nothing: {@code match_none}, a field no index maps, a date range outside the values
   * every shard holds), null for a query that matches nothing in the data, or on one shard.
   */
  @Test
  void maxScoreAsTheNodeGivesIt() throws Exception {
    ObjectNode past = search("{\"from\": 3, \"size\": 2, \"query\": {\"match\": {\"msg\": \"timeout\"}}}", Map.of());
    assertEquals(0, past.at("/hits/hits").size(), past.toString());
    assertTrue(past.at("/hits/max_score").floatValue() > 0, past.toString());
    ObjectNode none = searchTwo("{\"query\": {\"match_none\": {}}, \"sort\": [\"n\"]}", Map.of());
    assertEquals(0.0, none.at("/hits/max_score").doubleValue(), none.toString());
    assertTrue(none.at("/hits/max_score").isNumber(), none.toString());
    ObjectNode oneShard = search("{\"query\": {\"match_none\": {}}, \"sort\": [\"n\"]}", Map.of());
    assertTrue(oneShard.at("/hits/max_score").isNull(), "no pre-filter on one shard: " + oneShard);
    ObjectNode excluded = searchTwo("{\"query\": {\"bool\": {\"must_not\": {\"match_all\": {\"boost\": 1.2}}}},"
        + " \"sort\": [\"n\"]}", Map.of());
    assertTrue(excluded.at("/hits/max_score").isNumber(), excluded.toString());
    ObjectNode nothingInTheData = searchTwo("{\"query\": {\"term\": {\"n\": 99}}, \"sort\": [\"n\"]}", Map.of());
    assertTrue(nothingInTheData.at("/hits/max_score").isNull(), nothingInTheData.toString());
    ObjectNode byScore = searchTwo("{\"query\": {\"match_none\": {}}}", Map.of());
    assertTrue(byScore.at("/hits/max_score").isNull(), byScore.toString());
    // the node's pre-filter skips no shard where the search aggregates, or sorts first on the score
    for (String other : List.of("\"sort\": [\"n\"], \"aggs\": {\"m\": {\"max\": {\"field\": \"n\"}}}",
        "\"sort\": [\"_score\", \"n\"]")) {
      ObjectNode r = searchTwo("{\"query\": {\"match_none\": {}}, " + other + "}", Map.of());
      assertTrue(r.at("/hits/max_score").isNull(), r.toString());
    }
    // a missing value, _first, a number, or a sort on _doc: it runs
    for (String sort : List.of("{\"n\": {\"missing\": \"_first\"}}", "{\"n\": {\"missing\": 0}}", "\"_doc\"")) {
      ObjectNode r = searchTwo("{\"query\": {\"match_none\": {}}, \"sort\": [" + sort + "]}", Map.of());
      assertEquals(0.0, r.at("/hits/max_score").doubleValue(), r.toString());
    }
    ObjectNode unmapped = searchTwo("{\"size\": 0, \"query\": {\"exists\": {\"field\": \"nope\"}}, \"sort\": [\"n\"]}",
        Map.of());
    assertEquals(0.0, unmapped.at("/hits/max_score").doubleValue(), unmapped.toString());
    // a date range outside every shard's dates: skipped on the values (seed 4252109389 #706 of the generator)
    ObjectNode before = searchTwo("{\"query\": {\"range\": {\"at\": {\"lt\": 1600000000000}}}, \"sort\": [\"n\"]}",
        Map.of());
    assertEquals(0.0, before.at("/hits/max_score").doubleValue(), before.toString());
    assertTrue(before.at("/hits/max_score").isNumber(), before.toString());
    // within the dates but matching none, or a number range outside the numbers: searched, null
    for (String range : List.of("{\"at\": {\"gt\": 1700000000000, \"lt\": 1700000000005}}", "{\"n\": {\"gt\": 100}}")) {
      ObjectNode r = searchTwo("{\"query\": {\"range\": " + range + "}, \"sort\": [\"n\"]}", Map.of());
      assertEquals(0, r.at("/hits/total/value").asInt(), r.toString());
      assertTrue(r.at("/hits/max_score").isNull(), r.toString());
    }
  }

  /**
   * Tracked up to 0, a total is 0 whatever the search returned (found by the independent generator against a 9.3.3
   * node: {@code from} past every hit, or {@code search_after} past them, counted 6 and 1,484 here where the node
   * answers 0): {@code eq} only where the query matched nothing. Where the node's pre-filter skipped every shard, the
   * empty answer's total is {@code {0, eq}}, untracked or tracked up to 0 ({@code match_none} sorted on a field, as a
   * number: 0, not -1); on one shard the node runs no pre-filter.
   */
  @Test
  void aTotalTrackedUpToZeroIsZeroWhateverTheSearchReturned() throws Exception {
    ObjectNode past = search("{\"from\": 10, \"size\": 3, \"sort\": [\"n\"], \"track_total_hits\": 0}", Map.of());
    assertEquals(0, past.at("/hits/hits").size(), past.toString());
    assertEquals("{\"value\":0,\"relation\":\"gte\"}", past.at("/hits/total").toString(), past.toString());
    ObjectNode after = search("{\"size\": 3, \"sort\": [\"n\"], \"search_after\": [100],"
        + " \"track_total_hits\": 0}", Map.of());
    assertEquals(1, after.at("/hits/hits").size(), "b alone, without n, sorts after 100: " + after);
    assertEquals("{\"value\":0,\"relation\":\"gte\"}", after.at("/hits/total").toString(), after.toString());
    ObjectNode skipped = searchTwo("{\"size\": 0, \"query\": {\"match_none\": {}}, \"sort\": [\"n\"],"
        + " \"track_total_hits\": false}", Map.of("rest_total_hits_as_int", "true"));
    assertEquals(0, skipped.at("/hits/total").asInt(-2), skipped.toString());
    ObjectNode trackedToZero = search("{\"size\": 0, \"query\": {\"match_none\": {}}, \"sort\": [\"n\"],"
        + " \"track_total_hits\": 0}", Map.of());
    assertEquals("{\"value\":0,\"relation\":\"gte\"}", trackedToZero.at("/hits/total").toString(), trackedToZero.toString());
    // the same on two shards, which the node's pre-filter all skipped: {0, eq} (seed 2433609720 #636)
    ObjectNode allSkipped = searchTwo("{\"size\": 0, \"query\": {\"match_none\": {}}, \"sort\": [\"n\"],"
        + " \"track_total_hits\": 0}", Map.of());
    assertEquals("{\"value\":0,\"relation\":\"eq\"}", allSkipped.at("/hits/total").toString(), allSkipped.toString());
  }

  /**
   * A {@code range} aggregation's bucket that matched nothing still has its sub-aggregations, as the node answers: a
   * {@code terms} with {@code min_doc_count} 0 under it lists every term at 0 (found by the independent generator).
   */
  @Test
  void anEmptyRangeBucketHasItsSubAggregations() throws Exception {
    ObjectNode r = search("{\"size\": 0, \"aggs\": {\"r\": {\"range\": {\"field\": \"n\", \"ranges\": [{\"from\": 100},"
        + " {\"to\": 0}]}, \"aggs\": {\"t\": {\"terms\": {\"field\": \"n\", \"min_doc_count\": 0}}}}}}", Map.of());
    JsonNode empty = r.at("/aggregations/r/buckets/1");
    assertEquals(0, empty.at("/doc_count").asInt(-1), r.toString());
    assertEquals(3, empty.at("/t/buckets").size(), "every value of n at 0 under the empty bucket: " + r);
    JsonNode one = r.at("/aggregations/r/buckets/0");
    assertEquals(1, one.at("/doc_count").asInt(-1), r.toString());
    assertEquals(3, one.at("/t/buckets").size(), r.toString());
  }

  @Test
  void aTotalAsANumberIsExactOrMinusOne() throws Exception {
    Map<String, String> asInt = Map.of("rest_total_hits_as_int", "true");
    assertEquals(-1, search("{\"size\": 0, \"track_total_hits\": false}", asInt).at("/hits/total").asInt());
    assertEquals(-1, search("{\"size\": 1, \"track_total_hits\": false}", asInt).at("/hits/total").asInt());
    assertEquals(4, search("{\"size\": 1}", asInt).at("/hits/total").asInt());
    DslException bound = assertThrows(DslException.class, () -> search("{\"track_total_hits\": 0}", asInt));
    assertEquals("[rest_total_hits_as_int] cannot be used if the tracking of total hits is not accurate, got 0",
        bound.getMessage());
  }

  @Test
  void aSortsMissingValueStandsInForTheMissingOnes() throws Exception {
    ObjectNode asc = search("{\"sort\": [{\"n\": {\"order\": \"asc\", \"missing\": 0}}], \"_source\": false}",
        Map.of());
    assertEquals("[[-3],[0],[5],[12]]", sortValues(asc).toString(), asc.toString());
    assertEquals("b", asc.at("/hits/hits/1/_id").asText());
    ObjectNode desc = search("{\"sort\": [{\"n\": {\"order\": \"desc\", \"missing\": \"77\"}}]}", Map.of());
    assertEquals("b", desc.at("/hits/hits/0/_id").asText(), desc.toString());
    assertEquals(77, desc.at("/hits/hits/0/sort/0").asLong());
    // a date's missing value is read as a number, as the node reads it; a date fails it
    ObjectNode date = search("{\"sort\": [{\"at\": {\"missing\": 1}}]}", Map.of());
    assertEquals("b", date.at("/hits/hits/0/_id").asText(), date.toString());
    DslException notANumber = assertThrows(DslException.class,
        () -> search("{\"sort\": [{\"at\": {\"missing\": \"2020-01-01\"}}]}", Map.of()));
    assertEquals("number_format_exception", notANumber.rootCauseType());
  }

  /**
   * A sort's {@code format} and {@code numeric_type} show its values as a 9.3.3 node showed them for the same request
   * (the node's answers were taken by hand and are written out here), and read {@code search_after} back in that form.
   */
  @Test
  void aSortsFormatAndNumericTypeShowItsValuesAsTheNodeDoes() throws Exception {
    ObjectNode formatted = search("{\"sort\": [{\"at\": {\"order\": \"asc\", \"format\": \"strict_date_optional_time\"}}]}",
        Map.of());
    assertEquals("[[\"2023-11-14T22:13:19.997Z\"],[\"2023-11-14T22:13:20.005Z\"],[\"2023-11-14T22:13:20.012Z\"],[null]]",
        sortValues(formatted).toString()); // a document without a value: null in a format
    ObjectNode pattern = search("{\"sort\": [{\"at\": {\"format\": \"yyyy-MM-dd HH:mm:ss.SSS\"}}],"
        + " \"search_after\": [\"2023-11-14 22:13:20.005\"]}", Map.of());
    assertEquals("[[\"2023-11-14 22:13:20.012\"],[null]]", sortValues(pattern).toString());
    ObjectNode epoch = search("{\"sort\": [{\"at\": {\"order\": \"desc\", \"format\": \"epoch_millis\"}}]}", Map.of());
    assertEquals("[[\"1700000000012\"],[\"1700000000005\"],[\"1699999999997\"],[null]]", sortValues(epoch).toString());

    // date_nanos of a date: nanoseconds; no value is 0 descending, Long.MAX_VALUE ascending
    ObjectNode nanos = search("{\"sort\": [{\"at\": {\"order\": \"desc\", \"numeric_type\": \"date_nanos\"}}]}", Map.of());
    assertEquals("[[1700000000012000000],[1700000000005000000],[1699999999997000000],[0]]",
        sortValues(nanos).toString());
    ObjectNode nanosAfter = search("{\"sort\": [{\"at\": {\"numeric_type\": \"date_nanos\"}}],"
        + " \"search_after\": [1700000000005000000]}", Map.of());
    assertEquals("[[1700000000012000000],[9223372036854775807]]", sortValues(nanosAfter).toString());
    ObjectNode nanosFormatted = search("{\"sort\": [{\"at\": {\"numeric_type\": \"date_nanos\","
        + " \"format\": \"strict_date_optional_time_nanos\"}}]}", Map.of());
    assertEquals("[[\"2023-11-14T22:13:19.997Z\"],[\"2023-11-14T22:13:20.005Z\"],[\"2023-11-14T22:13:20.012Z\"],[null]]",
        sortValues(nanosFormatted).toString());
    ObjectNode nanosMissing = search("{\"sort\": [{\"at\": {\"numeric_type\": \"date_nanos\", \"missing\": 2000000}}]}",
        Map.of()); // given in nanoseconds, as the node reads it
    assertEquals("[[2000000],[1699999999997000000],[1700000000005000000],[1700000000012000000]]",
        sortValues(nanosMissing).toString());

    // double of a long: doubles, no value is Infinity (a string, as the node writes it)
    ObjectNode doubles = search("{\"sort\": [{\"n\": {\"numeric_type\": \"double\"}}]}", Map.of());
    assertEquals("[[-3.0],[5.0],[12.0],[\"Infinity\"]]", sortValues(doubles).toString());
    ObjectNode doublesAfter = search("{\"sort\": [{\"n\": {\"numeric_type\": \"double\"}}], \"search_after\": [5.0]}",
        Map.of());
    assertEquals("[[12.0],[\"Infinity\"]]", sortValues(doublesAfter).toString());
    ObjectNode same = search("{\"sort\": [{\"n\": {\"order\": \"desc\", \"numeric_type\": \"long\"}},"
        + " {\"at\": {\"numeric_type\": \"date\"}}]}", Map.of());
    assertEquals("[[12,1700000000012],[5,1700000000005],[-3,1699999999997],[-9223372036854775808,9223372036854775807]]",
        sortValues(same).toString());

    // refused as the node refuses them
    assertRefused("{\"sort\": [{\"n\": {\"format\": \"0.00\"}}]}", "illegal_argument_exception",
        "require a date_time formatter; got [decimal]");
    assertRefused("{\"sort\": [{\"n\": {\"numeric_type\": \"foo\"}}]}", "x_content_parse_exception",
        "must be [long, double, date, date_nanos], got foo");
    assertRefused("{\"sort\": [{\"n\": {\"numeric_type\": \"date_nanos\"}}]}", "illegal_argument_exception",
        "wrong field used?");
    DslException text = assertThrows(DslException.class,
        () -> search("{\"sort\": [{\"msg\": {\"numeric_type\": \"long\"}}]}", Map.of()));
    assertTrue(text.getMessage().contains("[numeric_type] option cannot be set on a non-numeric field, got text"),
        text.getMessage());
    // refused by Permafrost, naming the field: a conversion that could join values, and values between two
    assertRefused("{\"sort\": [{\"x\": {\"numeric_type\": \"long\"}}]}", "illegal_argument_exception", "[x]");
    assertRefused("{\"sort\": [{\"ns\": {\"numeric_type\": \"date\"}}]}", "illegal_argument_exception", "[ns]");
    assertRefused("{\"sort\": [{\"n\": {\"numeric_type\": \"double\"}}], \"search_after\": [4.5]}",
        "illegal_argument_exception", "[search_after] value [4.5] of [n]");
    assertRefused("{\"sort\": [{\"at\": {\"numeric_type\": \"date_nanos\"}}], \"search_after\": [1700000000005000001]}",
        "illegal_argument_exception", "[search_after] value [1700000000005000001] of [at]");
    assertRefused("{\"sort\": [{\"at\": {\"numeric_type\": \"date_nanos\", \"missing\": 5}}]}",
        "illegal_argument_exception", "[missing] [5] of [at]");
    // a float shown as a double: a search_after that was a float is read back as that float, any other refused
    ObjectNode floats = search("{\"sort\": [{\"f\": {\"numeric_type\": \"double\"}}], \"search_after\": [1.5]}",
        Map.of());
    assertEquals("[[\"Infinity\"],[\"Infinity\"],[\"Infinity\"],[\"Infinity\"]]", sortValues(floats).toString());
    assertRefused("{\"sort\": [{\"f\": {\"numeric_type\": \"double\"}}], \"search_after\": [0.1]}",
        "illegal_argument_exception", "[search_after] value [0.1] of [f]");
  }

  /**
   * {@code stored_fields}: {@code _none_} shows no id, a stored field is refused by name (what it does to the source is
   * compared with a live node's in the examples' differential test: these documents keep none).
   */
  @Test
  void storedFieldsNoneHidesTheIdAndAStoredFieldIsRefusedByName() throws Exception {
    ObjectNode ids = search("{\"stored_fields\": [], \"sort\": [\"n\"]}", Map.of());
    assertTrue(ids.at("/hits/hits/0/_id").isTextual(), ids.toString());
    ObjectNode noId = search("{\"stored_fields\": \"_none_\", \"sort\": [\"n\"]}", Map.of());
    assertTrue(noId.at("/hits/hits/0/_id").isMissingNode() && noId.at("/hits/hits/0/_index").isTextual(), noId.toString());
    assertRefused("{\"stored_fields\": \"_none_\", \"_source\": true}", "action_request_validation_exception",
        "[stored_fields] cannot be disabled if [_source] is requested");
    assertRefused("{\"stored_fields\": [\"obj.kept\"]}", "illegal_argument_exception", "[obj.kept]");
    assertRefused("{\"stored_fields\": [\"*\"]}", "illegal_argument_exception", "[obj.kept]");
    assertRefused("{\"runtime_mappings\": {\"r\": {\"type\": \"long\"}}}", "parsing_exception", "[runtime_mappings]");
  }

  private void assertRefused(String body, String type, String naming) {
    DslException e = assertThrows(DslException.class, () -> search(body, Map.of()), body);
    assertEquals(400, e.status(), body);
    assertTrue(e.getMessage().contains(naming), body + ": " + e.getMessage());
    assertTrue(type.equals(e.type()) || type.equals(e.rootCauseType()), body + ": " + e.type() + " / " + e.rootCauseType());
  }

  @Test
  void aSortOnTheScoreAloneIsTheSearchByScore() throws Exception {
    ObjectNode byScore = search("{\"query\": {\"match\": {\"msg\": \"timeout\"}}, \"sort\": [\"_score\"]}", Map.of());
    assertFalse(byScore.at("/hits/max_score").isNull(), byScore.toString());
    assertTrue(byScore.at("/hits/hits/0/sort").isMissingNode(), byScore.toString());
    ObjectNode ascending = search("{\"query\": {\"match\": {\"msg\": \"timeout\"}}, \"sort\": [{\"_score\": \"asc\"}]}",
        Map.of());
    assertTrue(ascending.at("/hits/max_score").isNull(), ascending.toString());
    assertEquals(ascending.at("/hits/hits/0/sort/0").floatValue(), ascending.at("/hits/hits/0/_score").floatValue());
  }

  private static com.fasterxml.jackson.databind.JsonNode sortValues(ObjectNode response) {
    com.fasterxml.jackson.databind.node.ArrayNode out = JSON.createArrayNode();
    response.at("/hits/hits").forEach(h -> out.add(h.get("sort")));
    return out;
  }
}
