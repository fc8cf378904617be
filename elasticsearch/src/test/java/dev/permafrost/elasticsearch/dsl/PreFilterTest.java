/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.permafrost.elasticsearch.IndexMapping;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The node's pre-filter as a 9.3.3 node was seen to apply it (replayed requests over the differential test's data):
 * which queries rewrite to nothing on a shard, by its mapping and by the dates its points hold, and which requests run
 * it at all. A shard here holds {@code @timestamp} from 2024-03-01 to 2024-04-09 and {@code seq} from 0 to 2999.
 */
class PreFilterTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static ByteBuffersDirectory dir;
  private static DirectoryReader reader;
  private static IndexMapping mapping;

  @BeforeAll
  static void index() throws IOException {
    dir = new ByteBuffersDirectory();
    try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig())) {
      for (String[] doc : new String[][] {{"2024-03-01T00:42:15Z", "0"}, {"2024-04-09T23:58:18Z", "2999"}}) {
        Document d = new Document();
        d.add(new LongPoint("@timestamp", Instant.parse(doc[0]).toEpochMilli()));
        d.add(new LongPoint("seq", Long.parseLong(doc[1])));
        w.addDocument(d);
      }
    }
    reader = DirectoryReader.open(dir);
    mapping = IndexMapping.of(JSON.readTree("""
        {"properties": {"@timestamp": {"type": "date"}, "seq": {"type": "long"}, "host": {"type": "keyword"},
          "gone": {"type": "date"}}}"""));
  }

  @AfterAll
  static void close() throws IOException {
    reader.close();
    dir.close();
  }

  private static boolean nothing(String query) throws IOException {
    return PreFilter.rewritesToNothing(QueryDslParser.parse(JSON.readTree(query)), mapping, reader);
  }

  @Test
  void aDateRangeOutsideTheShardsValuesRewritesToNothing() throws IOException {
    assertTrue(nothing("{\"range\": {\"@timestamp\": {\"lt\": \"2024-02-01\"}}}"));
    assertTrue(nothing("{\"range\": {\"@timestamp\": {\"gt\": \"2024-04-09T23:58:18Z\"}}}"));
    assertFalse(nothing("{\"range\": {\"@timestamp\": {\"gte\": \"2024-04-09T23:58:18Z\"}}}"));
    assertFalse(nothing("{\"range\": {\"@timestamp\": {\"lt\": \"2024-03-01T00:50:00Z\", \"gt\": \"2020-01-01\"}}}"));
    assertTrue(nothing("{\"range\": {\"gone\": {\"gte\": \"2020-01-01\"}}}")); // a date the shard holds no value of
    // an empty range is weighed bound by bound: skipped where one bound lies outside the dates (seed 706289052 #315),
    // searched where both lie within them (seed 4073861448 #535)
    assertTrue(nothing("{\"range\": {\"@timestamp\": {\"gte\": \"2024-03-15\", \"lt\": \"2024-03-01\"}}}"));
    assertTrue(nothing("{\"range\": {\"@timestamp\": {\"gte\": \"2024-04-15\", \"lt\": \"2024-03-01\"}}}"));
    assertFalse(nothing("{\"range\": {\"@timestamp\": {\"gt\": \"2024-03-22\", \"lte\": \"2024-03-22\"}}}"));
    assertTrue(nothing("{\"constant_score\": {\"filter\": {\"range\": {\"@timestamp\": {\"lt\": \"2024-02-01\"}}}}}"));
    assertTrue(nothing("{\"bool\": {\"filter\": [{\"range\": {\"@timestamp\": {\"lt\": \"2024-02-01\"}}}],"
        + " \"should\": [{\"term\": {\"host\": \"web-01\"}}]}}"));
    // only should clauses, all of them nothing
    assertTrue(nothing("{\"bool\": {\"should\": [{\"range\": {\"@timestamp\": {\"lt\": \"2024-02-01\"}}},"
        + " {\"match_none\": {}}]}}"));
    assertFalse(nothing("{\"bool\": {\"should\": [{\"range\": {\"@timestamp\": {\"lt\": \"2024-02-01\"}}},"
        + " {\"term\": {\"host\": \"web-01\"}}]}}"));
    // on the mapping alone, no reader: the values are not asked
    assertFalse(PreFilter.rewritesToNothing(QueryDslParser.parse(JSON.readTree("{\"range\": {\"@timestamp\": {\"lt\":"
        + " \"2024-02-01\"}}}")), mapping, null));
  }

  @Test
  void numbersAndOtherFormsOfADateAreNotRewrittenByValues() throws IOException {
    assertFalse(nothing("{\"range\": {\"seq\": {\"gte\": 5000}}}"));
    assertFalse(nothing("{\"query_string\": {\"query\": \"@timestamp:[2020-01-01 TO 2020-02-01]\"}}"));
    assertFalse(nothing("{\"term\": {\"@timestamp\": \"2020-01-01T00:00:00Z\"}}"));
    assertFalse(nothing("{\"dis_max\": {\"queries\": [{\"match_none\": {}}]}}"));
    assertFalse(nothing("{\"bool\": {\"must_not\": [{\"range\": {\"@timestamp\": {\"gte\": \"2020-01-01\"}}}]}}"));
    assertTrue(nothing("{\"bool\": {\"must_not\": [{\"match_all\": {}}]}}"));
    assertTrue(nothing("{\"term\": {\"no_such_field\": 1}}"));
  }

  /** A date range's bounds are read as the range query reads them: its format, time zone, date math and rounding. */
  @Test
  void aDateRangesBoundsAreReadAsTheRangeQueryReadsThem() throws IOException {
    // format: 1 February is before the shard's dates, 1 April within them; unreadable without the format: searched
    assertTrue(nothing("{\"range\": {\"@timestamp\": {\"lt\": \"01/02/2024\", \"format\": \"dd/MM/yyyy\"}}}"));
    assertFalse(nothing("{\"range\": {\"@timestamp\": {\"lt\": \"01/04/2024\", \"format\": \"dd/MM/yyyy\"}}}"));
    assertFalse(nothing("{\"range\": {\"@timestamp\": {\"lt\": \"01/02/2024\"}}}"));
    assertTrue(nothing("{\"range\": {\"@timestamp\": {\"lt\": 1709251200000, \"format\": \"epoch_millis\"}}}"));
    // time zone: 01:00 at +02:00 is before the first date (00:42:15Z), 01:00Z after it
    assertTrue(nothing("{\"range\": {\"@timestamp\": {\"lt\": \"2024-03-01T01:00:00\", \"time_zone\": \"+02:00\"}}}"));
    assertFalse(nothing("{\"range\": {\"@timestamp\": {\"lt\": \"2024-03-01T01:00:00\"}}}"));
    assertTrue(nothing("{\"range\": {\"@timestamp\": {\"gt\": \"2024-04-09T23:00:00\", \"time_zone\": \"-01:00\"}}}"));
    // date math: now is after every date of the shard
    assertTrue(nothing("{\"range\": {\"@timestamp\": {\"gte\": \"now-1d/d\"}}}"));
    assertFalse(nothing("{\"range\": {\"@timestamp\": {\"lt\": \"now-1d/d\"}}}"));
    // rounding by the bound's side: lt and gte round down, lte and gt up
    assertTrue(nothing("{\"range\": {\"@timestamp\": {\"lt\": \"2024-03-01||/d\"}}}"));
    assertFalse(nothing("{\"range\": {\"@timestamp\": {\"lte\": \"2024-03-01||/d\"}}}"));
    assertTrue(nothing("{\"range\": {\"@timestamp\": {\"gt\": \"2024-04-09||/d\"}}}"));
    assertFalse(nothing("{\"range\": {\"@timestamp\": {\"gte\": \"2024-04-09||/d\"}}}"));
    // a boost beside the field: the range it boosts
    assertTrue(nothing("{\"range\": {\"@timestamp\": {\"lt\": \"2024-02-01\"}, \"boost\": 2}}"));
  }

  /** On the mapping alone: field queries on unmapped fields, an object's field not, the compound rules. */
  @Test
  void onTheMappingAloneFieldQueriesOnUnmappedFieldsRewriteToNothing() throws IOException {
    IndexMapping objects = IndexMapping.of(JSON.readTree("{\"properties\": {\"host\": {\"type\": \"keyword\"},"
        + " \"user\": {\"properties\": {\"name\": {\"type\": \"keyword\"}}}}}"));
    for (String q : new String[] {"{\"match_none\": {}}", "{\"term\": {\"nowhere\": {\"value\": 1}, \"boost\": 2}}",
        "{\"bool\": {\"filter\": [{\"exists\": {\"field\": \"x\"}}]}}", "{\"bool\": {\"must_not\": {\"match_all\": {}}}}",
        "{\"constant_score\": {\"filter\": {\"range\": {\"z\": {\"gte\": 1}}}}}", "{\"terms\": {\"z\": [\"a\"]}}",
        "{\"terms\": {\"z\": []}}", "{\"prefix\": {\"z\": \"a\"}}", "{\"wildcard\": {\"z\": \"a*\"}}",
        "{\"match\": {\"z\": \"a\"}}", "{\"match_phrase\": {\"z\": \"a b\"}}", "{\"exists\": {\"field\": \"user.x\"}}",
        "{\"bool\": {\"should\": [{\"match_none\": {}}], \"must_not\": [{\"term\": {\"host\": \"a\"}}]}}"}) {
      assertTrue(PreFilter.rewritesToNothing(QueryDslParser.parse(JSON.readTree(q)), objects, null), q);
    }
    for (String q : new String[] {"{\"exists\": {\"field\": \"user\"}}", "{\"term\": {\"user\": \"a\"}}",
        "{\"term\": {\"host\": \"a\"}}", "{\"match_all\": {}}", "{\"ids\": {\"values\": []}}",
        "{\"query_string\": {\"query\": \"nowhere:1\"}}", "{\"multi_match\": {\"query\": \"a\", \"fields\": [\"z\"]}}",
        "{\"bool\": {\"must\": [{\"term\": {\"host\": \"a\"}}], \"should\": [{\"match_none\": {}}]}}",
        "{\"bool\": {\"must_not\": [{\"match_none\": {}}]}}", "{\"bool\": {}}",
        // a field the parser reads under the name _name: the rule sets boost and _name aside, as it always has
        "{\"term\": {\"_name\": {\"value\": 1}}}", "{\"range\": {\"_name\": {\"lt\": 1}}}"}) {
      assertFalse(PreFilter.rewritesToNothing(QueryDslParser.parse(JSON.readTree(q)), objects, null), q);
    }
    assertFalse(PreFilter.rewritesToNothing(null, objects, null));
  }

  @Test
  void itRunsForASortOnAFieldOrDocWithoutAggregations() throws IOException {
    QueryNode query = QueryDslParser.parse(JSON.readTree("{\"match_none\": {}}"));
    for (String sort : new String[] {"\"seq\"", "[\"_doc\"]", "[{\"seq\": {\"missing\": \"_first\"}}]",
        "[{\"seq\": {\"missing\": -1}}]", "[{\"nowhere\": {\"unmapped_type\": \"long\"}}, \"_score\"]",
        "[\"seq\", \"_score\"]"}) {
      assertEquals(query, PreFilter.of(query, sort(sort), false).query(), sort);
      assertEquals(PreFilter.NONE, PreFilter.of(query, sort(sort), true), sort);
    }
    for (String sort : new String[] {"[\"_score\", \"seq\"]", "[{\"_score\": \"asc\"}]", "\"_score\"", "[]",
        "null"}) {
      assertEquals(PreFilter.NONE, PreFilter.of(query, sort(sort), false), sort);
    }
    assertEquals(PreFilter.NONE, PreFilter.of(query, SortSpec.BY_SCORE, false));
  }

  private static SortSpec sort(String json) throws IOException {
    return SortSpec.parse(JSON.readTree(json), mapping, List.of());
  }
}
