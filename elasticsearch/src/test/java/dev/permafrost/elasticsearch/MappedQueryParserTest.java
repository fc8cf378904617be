/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.document.SortedSetDocValuesField;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.ConstantScoreQuery;
import org.apache.lucene.search.FieldExistsQuery;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;

/** The parser by itself: fields as the mapping types them, clear refusals, and one parser shared by many threads. */
class MappedQueryParserTest {
  private static final String MAPPING = """
      {"_doc": {"properties": {
        "@timestamp": {"type": "date"}, "host": {"type": "keyword"}, "status": {"type": "long"},
        "message": {"type": "text", "fields": {"raw": {"type": "keyword"}}},
        "ip": {"type": "ip"}, "price": {"type": "scaled_float", "scaling_factor": 100},
        "body": {"type": "text", "analyzer": "my_custom"},
        "user": {"type": "nested", "properties": {"name": {"type": "keyword"}}},
        "geo": {"properties": {"city": {"type": "keyword"}}}
      }}}""";

  private static IndexMapping mapping() throws Exception {
    return IndexMapping.of(new ObjectMapper().readTree(MAPPING));
  }

  /**
   * Keywords are one term, text is analyzed, numbers and dates are points; each term and range on a field with doc
   * values also runs from them where a segment has no postings or points for it (logsdb and time_series indices).
   */
  @Test
  void fieldsAreQueriedAsTheMappingTypesThem() throws Exception {
    MappedQueryParser parser = new MappedQueryParser(mapping());
    assertEquals(orDocValues("host", new TermQuery(new Term("host", "Web-03 A")),
        SortedSetDocValuesField.newSlowExactQuery("host", new BytesRef("Web-03 A"))), parser.parse("host:\"Web-03 A\""));
    assertEquals(new TermQuery(new Term("message", "timeout")), parser.parse("message:Timeout")); // text: no doc values
    assertEquals(orDocValues("geo.city", new TermQuery(new Term("geo.city", "Oslo")),
        SortedSetDocValuesField.newSlowExactQuery("geo.city", new BytesRef("Oslo"))), parser.parse("geo.city:Oslo"));
    assertEquals(orDocValues("status", LongPoint.newExactQuery("status", 404),
        SortedNumericDocValuesField.newSlowRangeQuery("status", 404, 404)), parser.parse("status:404"));
    assertEquals(orDocValues("@timestamp", LongPoint.newRangeQuery("@timestamp", 1704844800000L, 1705017599999L),
        SortedNumericDocValuesField.newSlowRangeQuery("@timestamp", 1704844800000L, 1705017599999L)),
        parser.parse("@timestamp:[2024-01-10T00:00:00Z TO 2024-01-12T00:00:00Z}"));
    assertEquals(orDocValues("@timestamp", LongPoint.newRangeQuery("@timestamp", 1704844800000L, 1704844800000L),
        SortedNumericDocValuesField.newSlowRangeQuery("@timestamp", 1704844800000L, 1704844800000L)),
        parser.parse("@timestamp:[2024-01-10 TO 1704844800000]"));
    assertEquals(new FieldExistsQuery("status"), parser.parse("_exists_:status"));
    assertEquals(new FieldExistsQuery("nope"), parser.parse("_exists_:nope")); // matches nothing, as in the engine
  }

  /** {@code _exists_} on an object is any of its fields' values, as the {@code exists} query reads it (issue 54). */
  @Test
  void existsOnAnObjectIsAnyOfItsFields() throws Exception {
    MappedQueryParser parser = new MappedQueryParser(mapping());
    BooleanQuery.Builder any = new BooleanQuery.Builder();
    any.add(new FieldExistsQuery("geo.city"), BooleanClause.Occur.SHOULD);
    assertEquals(new ConstantScoreQuery(any.build()), parser.parse("_exists_:geo"));
    assertEquals(new FieldExistsQuery("user"), parser.parse("_exists_:user")); // nested: hidden, nothing matches
  }

  /**
   * Leniently (the engines' query_string without a default field), a value that is not a date of its field matches
   * nothing; else it fails the query (issue 54: a 9.3.3 node counts {@code day:abc OR service:auth} as service:auth).
   */
  @Test
  void leniently_aValueNotADateMatchesNothing() throws Exception {
    MappedQueryParser parser = new MappedQueryParser(mapping());
    Query lenient = parser.parse("@timestamp:abc OR host:x", null, false, true);
    assertTrue(lenient.toString().contains("MatchNoDocsQuery"), lenient.toString());
    assertTrue(parser.parse("@timestamp:[\"2024-03-19T00:38:12Z\" TO abc}", null, false, true).toString()
        .contains("MatchNoDocsQuery"));
    assertThrows(RuntimeException.class, () -> parser.parse("@timestamp:abc OR host:x", null, false, false));
  }

  /** A leading wildcard is allowed, as the engines' {@code allow_leading_wildcard} is by default (issue 54). */
  @Test
  void leadingWildcardsAreAllowed() throws Exception {
    MappedQueryParser parser = new MappedQueryParser(mapping());
    Query q = parser.parse("host:*th");
    assertTrue(q.toString().contains("host:*th"), q.toString());
  }

  /**
   * A date-only bound rounds as Elasticsearch rounds it: an inclusive upper bound to the day's last millisecond, an
   * exclusive lower one past the day; a date alone is its day; one-sided ranges are open on the other side.
   */
  @Test
  void dateOnlyBoundsRoundAsElasticsearchRoundsThem() throws Exception {
    MappedQueryParser parser = new MappedQueryParser(mapping());
    long jan10 = 1704844800000L;
    long day = 86_400_000L;
    assertEquals(orDocValues("@timestamp", LongPoint.newRangeQuery("@timestamp", jan10, jan10 + 2 * day - 1),
        SortedNumericDocValuesField.newSlowRangeQuery("@timestamp", jan10, jan10 + 2 * day - 1)),
        parser.parse("@timestamp:[2024-01-10 TO 2024-01-11]"));
    assertEquals(orDocValues("@timestamp", LongPoint.newRangeQuery("@timestamp", jan10 + day, Long.MAX_VALUE),
        SortedNumericDocValuesField.newSlowRangeQuery("@timestamp", jan10 + day, Long.MAX_VALUE)),
        parser.parse("@timestamp:{2024-01-10 TO *]"));
    assertEquals(parser.parse("@timestamp:[2024-01-10 TO 2024-01-10]"), parser.parse("@timestamp:2024-01-10"));
    assertEquals(parser.parse("@timestamp:{2024-01-10 TO *]"), parser.parse("@timestamp:>2024-01-10"));
    assertEquals(parser.parse("status:[* TO 5}"), parser.parse("status:<5"));
    assertEquals(parser.parse("status:[10 TO *]"), parser.parse("status:>=10"));
    assertEquals(parser.parse("host:\":>x\""), parser.parse("host:\":>x\"")); // quoted: not an operator
    // in a field's group, as the reference combines both bounds (issue 54)
    assertEquals(parser.parse("status:([10 TO *] AND [* TO 20})"), parser.parse("status:(>=10 AND <20)"));
    assertEquals(parser.parse("status:({10 TO *] OR [* TO 2])"), parser.parse("status:(>10 OR <=2)"));
    assertEquals("a:(b >  c)", MappedQueryParser.oneSidedRanges("a:(b >  c)")); // nothing after it: left as it is
    IllegalArgumentException fuzzy = assertThrows(IllegalArgumentException.class, () -> parser.parse("@timestamp:2024~"));
    assertTrue(fuzzy.getMessage().contains("is a date"), fuzzy.getMessage());
  }

  /**
   * Terms in a row on a keyword field are one value, as Elasticsearch's {@code query_string} (which does not split on
   * whitespace) reads them: {@code host:(web-01 web-02)} is the one keyword {@code "web-01 web-02"}, which a 9.3.3
   * node matches in no document of the differential test's data, where each term alone would match half of them
   * (found by the reference generator, seed 4073861448 #617, {@code +(error error)} with {@code default_field} level).
   */
  @Test
  void termsInARowOnAKeywordAreOneValue() throws Exception {
    MappedQueryParser parser = new MappedQueryParser(mapping());
    Query joined = orDocValues("host", new TermQuery(new Term("host", "web-01 web-02")),
        SortedSetDocValuesField.newSlowExactQuery("host", new BytesRef("web-01 web-02")));
    assertEquals(joined, parser.parse("host:(web-01 web-02)"));
    assertEquals(joined, parser.parse("web-01 web-02", "host", false));
    BooleanQuery.Builder either = new BooleanQuery.Builder();
    for (String host : List.of("web-01", "web-02")) {
      either.add(orDocValues("host", new TermQuery(new Term("host", host)),
          SortedSetDocValuesField.newSlowExactQuery("host", new BytesRef(host))), BooleanClause.Occur.SHOULD);
    }
    assertEquals(either.build(), parser.parse("host:(web-01 OR web-02)"));
    // on text, the analyzer splits the run again: each word, as before
    assertEquals(parser.parse("message:(login OR failed)"), parser.parse("message:(login failed)"));
    // on a number, nothing (the node's 0 documents for status:(200 404), lenient or not), beside what else matches
    assertTrue(parser.parse("status:(200 404)") instanceof MatchNoDocsQuery, parser.parse("status:(200 404)").toString());
    BooleanQuery orHost = (BooleanQuery) parser.parse("status:(200 404) OR host:a");
    assertTrue(orHost.clauses().get(0).query() instanceof MatchNoDocsQuery, orHost.toString());
  }

  private static Query orDocValues(String field, Query indexed, Query docValues) {
    return new IndexedOrDocValuesQuery(field, indexed, docValues);
  }

  @Test
  void whatItCannotDoAsTheEngineDoesIsRefusedNamingTheField() throws Exception {
    MappedQueryParser parser = new MappedQueryParser(mapping());
    for (String[] q : new String[][] {{"user.name:ann", "nested"}, {"ip:10.0.0.1", "'ip'"},
        {"price:[1 TO 2]", "scaled_float"}, {"timeout", "name the field"}, {"host:a OR body:b", "my_custom"}}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parser.parse(q[0]));
      assertTrue(e.getMessage().contains(q[1]), e.getMessage());
    }
  }

  @Test
  void oneParserServesManyThreads() throws Exception {
    MappedQueryParser parser = new MappedQueryParser(IndexMapping.of(new ObjectMapper().readTree(
        MAPPING.replace("\"analyzer\": \"my_custom\"", "\"analyzer\": \"simple\""))));
    List<String> queries = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      queries.add("status:[" + i + " TO " + (i * 7 + 3) + "] AND @timestamp:[2024-01-" + String.format("%02d", 1 + i % 28)
          + "T00:00:00Z TO 2024-02-01T00:00:00Z} OR message:word" + i + " OR body:\"Two Words" + i + "\"");
    }
    List<String> expected = new ArrayList<>();
    for (String q : queries) {
      expected.add(parser.parse(q).toString());
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<List<String>>> results = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        results.add(pool.submit(() -> {
          List<String> got = new ArrayList<>();
          for (int round = 0; round < 10; round++) {
            for (String q : queries) {
              got.add(parser.parse(q).toString());
            }
          }
          return got;
        }));
      }
      for (Future<List<String>> f : results) {
        List<String> got = f.get();
        for (int i = 0; i < got.size(); i++) {
          assertEquals(expected.get(i % queries.size()), got.get(i));
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
