/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.permafrost.elasticsearch.IndexMapping;
import java.io.IOException;
import java.time.Instant;
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
    return PreFilter.rewritesToNothing(JSON.readTree(query), mapping, reader);
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
    assertFalse(PreFilter.rewritesToNothing(JSON.readTree("{\"range\": {\"@timestamp\": {\"lt\": \"2024-02-01\"}}}"),
        mapping, null));
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

  @Test
  void itRunsForASortOnAFieldOrDocWithoutAggregations() throws IOException {
    JsonNode query = JSON.readTree("{\"match_none\": {}}");
    for (String sort : new String[] {"\"seq\"", "[\"_doc\"]", "[{\"seq\": {\"missing\": \"_first\"}}]",
        "[{\"seq\": {\"missing\": -1}}]"}) {
      JsonNode request = JSON.readTree("{\"query\": {\"match_none\": {}}, \"sort\": " + sort + "}");
      assertEquals(query, PreFilter.of(request, false).query(), sort);
      assertEquals(PreFilter.NONE, PreFilter.of(request, true), sort);
    }
    for (String sort : new String[] {"[\"_score\", \"seq\"]", "[{\"_score\": \"asc\"}]"}) {
      assertEquals(PreFilter.NONE, PreFilter.of(JSON.readTree("{\"query\": {\"match_none\": {}}, \"sort\": " + sort
          + "}"), false), sort);
    }
    assertEquals(PreFilter.NONE, PreFilter.of(JSON.readTree("{\"query\": {\"match_none\": {}}}"), false));
  }
}
