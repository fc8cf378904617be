/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.document.SortedSetDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;

/**
 * The one front's rules, each against brute force over a real Lucene index: a time range on a timestamp kept in doc
 * values only (an Elasticsearch 9.3 time_series index) or in points, in milliseconds or nanoseconds; one field mapped
 * two ways read by each index's own mapping; "match all" one rule; a sort parsed once and refused where two mappings
 * sort it differently.
 */
class QueryFrontTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long T0 = Instant.parse("2024-01-01T00:00:00Z").toEpochMilli();

  private static IndexMapping mapping(String properties) throws IOException {
    return IndexMapping.of(JSON.readTree("{\"properties\": {" + properties + "}}"));
  }

  /** 500 documents, one every 7.3 s from T0 (in nanoseconds if {@code nanos}); {@code @timestamp} in doc values only
   * unless {@code points}; {@code status} a long (points) or a keyword. */
  private static Directory index(boolean points, boolean nanos, boolean keywordStatus) throws IOException {
    Directory dir = new ByteBuffersDirectory();
    try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig())) {
      for (int i = 0; i < 500; i++) {
        long value = nanos ? (T0 * 1_000_000L + i * 7_300_000_123L) : T0 + i * 7_300L;
        Document d = new Document();
        d.add(new SortedNumericDocValuesField("@timestamp", value));
        if (points) {
          d.add(new LongPoint("@timestamp", value));
        }
        long status = i % 5 == 0 ? 404 : 200;
        if (keywordStatus) {
          d.add(new StringField("status", Long.toString(status), Field.Store.NO));
          d.add(new SortedSetDocValuesField("status", new BytesRef(Long.toString(status))));
        } else {
          d.add(new LongPoint("status", status));
          d.add(new SortedNumericDocValuesField("status", status));
        }
        w.addDocument(d);
        if (i % 97 == 0) {
          w.commit(); // several segments
        }
      }
    }
    return dir;
  }

  private static int count(Directory dir, Query q) throws IOException {
    try (DirectoryReader r = DirectoryReader.open(dir)) {
      return new IndexSearcher(r).count(q);
    }
  }

  @Test
  void aTimeRangeMatchesFromDocValuesWherePointsAreMissingAsFromPoints() throws IOException {
    IndexMapping m = mapping("\"@timestamp\": {\"type\": \"date\"}, \"status\": {\"type\": \"long\"}");
    QueryFront front = new QueryFront(null, "@timestamp");
    Random random = new Random(59);
    try (Directory docValuesOnly = index(false, false, false); Directory withPoints = index(true, false, false)) {
      for (int round = 0; round < 50; round++) {
        long from = T0 + random.nextInt(500 * 7_300);
        long to = from + 1 + random.nextInt(200 * 7_300);
        QueryFront.TimeRange range = QueryFront.TimeRange.parse(Long.toString(from), Long.toString(to));
        long expected = 0;
        for (int i = 0; i < 500; i++) {
          long t = T0 + i * 7_300L;
          expected += t >= from && t < to ? 1 : 0;
        }
        assertEquals(expected, count(docValuesOnly, front.query(m, "*", range)), range + " from doc values");
        assertEquals(expected, count(withPoints, front.query(m, "*", range)), range + " from points");
        long expected404 = 0;
        for (int i = 0; i < 500; i += 5) {
          long t = T0 + i * 7_300L;
          expected404 += t >= from && t < to ? 1 : 0;
        }
        assertEquals(expected404, count(docValuesOnly, front.query(m, "status:404", range)), range + " status:404");
      }
    }
  }

  @Test
  void aDateNanosTimestampIsComparedInNanoseconds() throws IOException {
    IndexMapping m = mapping("\"@timestamp\": {\"type\": \"date_nanos\"}");
    QueryFront front = new QueryFront(null, "@timestamp");
    try (Directory dir = index(true, true, false); Directory dvOnly = index(false, true, false)) {
      // document 1 is at T0 + 7.300000123 s: a range starting one nanosecond after it leaves it out, one at it keeps it
      Instant one = Instant.ofEpochMilli(T0).plusNanos(7_300_000_123L);
      QueryFront.TimeRange at = new QueryFront.TimeRange(one, one.plusNanos(1));
      QueryFront.TimeRange after = new QueryFront.TimeRange(one.plusNanos(1), one.plusSeconds(1));
      QueryFront.TimeRange before = new QueryFront.TimeRange(Instant.ofEpochMilli(T0), one);
      for (Directory d : List.of(dir, dvOnly)) {
        assertEquals(1, count(d, front.query(m, null, at)));
        assertEquals(0, count(d, front.query(m, null, after)));
        assertEquals(1, count(d, front.query(m, null, before)), "document 0 only");
      }
      assertEquals(one, QueryFront.TimeRange.parse(one.toString(), null).from(), "an instant keeps its nanoseconds");
    }
  }

  @Test
  void aFieldMappedTwoWaysIsReadByEachIndexsOwnMapping() throws IOException {
    IndexMapping asLong = mapping("\"@timestamp\": {\"type\": \"date\"}, \"status\": {\"type\": \"long\"}");
    IndexMapping asKeyword = mapping("\"@timestamp\": {\"type\": \"date\"}, \"status\": {\"type\": \"keyword\"}");
    QueryFront front = new QueryFront(null, "@timestamp");
    try (Directory longs = index(true, false, false); Directory keywords = index(true, false, true)) {
      Function<String, IndexMapping> mappingOf = name -> name.equals("longs") ? asLong : asKeyword;
      Function<String, Query> queries = front.queries(mappingOf, List.of("longs", "keywords"), "status:404",
          QueryFront.TimeRange.ALL);
      assertEquals(100, count(longs, queries.apply("longs")));
      assertEquals(100, count(keywords, queries.apply("keywords")));
      // a range is a numeric range on the long index and a term range on the keyword one, as the engine reads it:
      // 200 and 404 lie between "1000" and "9999" as terms, not as numbers
      Function<String, Query> range = front.queries(mappingOf, List.of("longs", "keywords"), "status:[1000 TO 9999]",
          QueryFront.TimeRange.ALL);
      assertEquals(0, count(longs, range.apply("longs")));
      assertEquals(500, count(keywords, range.apply("keywords")));
      IllegalArgumentException sort = assertThrows(IllegalArgumentException.class,
          () -> front.sort(QueryFront.SortKey.parse("status:desc", null), List.of(asLong, asKeyword)));
      assertTrue(sort.getMessage().contains("cannot sort on 'status': the indices searched map it as long and keyword"),
          sort.getMessage());
      assertTrue(front.sort(QueryFront.SortKey.parse("status", null), List.of(asLong, asLong)) != null);
      IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> front.queries(mappingOf,
          List.of("longs", "keywords"), "status:(", QueryFront.TimeRange.ALL));
      assertTrue(refused.getMessage().startsWith("index 'longs': cannot parse query"), refused.getMessage());
    }
  }

  @Test
  void matchAllIsOneRule() {
    for (String all : new String[] {null, "", "  ", "*", " * ", "*:*", " *:* "}) {
      assertTrue(QueryFront.matchesAll(all), "'" + all + "'");
    }
    for (String some : new String[] {"a", "*a", "status:*", "* OR a"}) {
      assertTrue(!QueryFront.matchesAll(some), some);
    }
  }

  @Test
  void aSortIsParsedOnce() {
    QueryFront.SortKey newest = new QueryFront.SortKey("@timestamp", true);
    assertEquals(newest, QueryFront.SortKey.parse(null, newest));
    assertEquals(newest, QueryFront.SortKey.parse(" ", newest));
    assertNull(QueryFront.SortKey.parse("_score", newest));
    assertEquals(new QueryFront.SortKey("a.b", false), QueryFront.SortKey.parse("a.b", newest), "ascending, as ES");
    assertEquals(new QueryFront.SortKey("a:b", true), QueryFront.SortKey.parse("a:b:DESC", null));
    for (String bad : new String[] {"x:sideways", ":asc", "x:"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> QueryFront.SortKey.parse(bad, null));
      assertTrue(e.getMessage().contains("got '" + bad + "'"), e.getMessage());
    }
  }

  @Test
  void badTimesAreRefusedNamingTheParameter() {
    assertTrue(assertThrows(IllegalArgumentException.class, () -> QueryFront.TimeRange.parse("yesterday", null))
        .getMessage().startsWith("'from' must be"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> QueryFront.TimeRange.parse("2024-02-03", "2024-02-02"))
        .getMessage().contains("must be before"));
    assertEquals(Instant.parse("2024-02-03T00:00:00Z"), QueryFront.TimeRange.parse("2024-02-03", null).from());
    assertEquals(Instant.parse("2024-02-03T10:00:00Z"), QueryFront.TimeRange.parse(null, "2024-02-03T10:00").to());
  }
  @Test
  void aDeclaredMappingIsAnIndexBodyOrTheMappingAlone() {
    IndexMapping body = IndexMapping.declared("{\"settings\": {}, \"mappings\": {\"properties\": {\"a\": {\"type\": \"long\"}}}}");
    IndexMapping alone = IndexMapping.declared("{\"properties\": {\"a\": {\"type\": \"long\"}}}");
    assertEquals(FieldKind.LONG, body.field("a").kind());
    assertEquals(body.fields(), alone.fields());
    assertTrue(assertThrows(IllegalArgumentException.class, () -> IndexMapping.declared("[1]")).getMessage()
        .contains("a JSON object"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> IndexMapping.declared("{nope")).getMessage()
        .startsWith("a mapping must be JSON"));
  }

  @Test
  void anIndexWithoutAMappingReadsEveryNamedFieldAsAKeyword() throws IOException {
    QueryFront front = new QueryFront("message", "@timestamp");
    IndexMapping undeclared = front.undeclared(front.fieldsOf("status:404 AND error"));
    assertEquals(FieldKind.KEYWORD, undeclared.field("status").kind());
    assertEquals(FieldKind.TEXT, undeclared.field("message").kind());
    assertEquals(FieldKind.DATE, undeclared.field("@timestamp").kind());
    try (Directory keywords = index(true, false, true)) {
      assertEquals(100, count(keywords, front.query(undeclared, "status:404", QueryFront.TimeRange.ALL)));
    }
  }
}
