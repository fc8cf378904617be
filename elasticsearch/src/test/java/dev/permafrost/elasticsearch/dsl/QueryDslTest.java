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
import dev.permafrost.elasticsearch.DocumentId;
import dev.permafrost.elasticsearch.IndexMapping;
import java.io.IOException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.DoublePoint;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.IntPoint;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.document.SortedSetDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.MultiReader;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.SimpleCollector;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.NumericUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every query type against a brute-force evaluation over random documents, indexed as Elasticsearch writes them, in
 * two indices: one with postings and points, one keeping keywords, numbers and dates in doc values only (as
 * time_series and logsdb segments do). Seeded: a failure reproduces.
 */
class QueryDslTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long SEED = 0x5eed_d51L;
  private static final long NOW = Instant.parse("2024-03-14T15:09:26.535Z").toEpochMilli();
  private static final String MAPPING = """
      {"properties": {
        "host": {"type": "keyword"}, "tags": {"type": "keyword"}, "status": {"type": "long"},
        "code": {"type": "integer"}, "price": {"type": "double"}, "ts": {"type": "date"},
        "msg": {"type": "text"}, "ip": {"type": "ip"}, "flag": {"type": "boolean"},
        "user": {"type": "nested", "properties": {"name": {"type": "keyword"}}}
      }}""";
  private static final String[] HOSTS = {"web-01", "web-02", "Web-03", "db-1", "cache", "web-10"};
  private static final String[] WORDS = {"error", "login", "failed", "timeout", "user", "ok", "disk", "full"};
  private static final String[] ZONES = {"UTC", "+01:00", "-05:00", "Europe/Berlin", "America/New_York"};
  private static final long T0 = Instant.parse("2024-01-01T00:00:00Z").toEpochMilli();
  private static final long T1 = Instant.parse("2024-04-01T00:00:00Z").toEpochMilli();

  /** One document as the test knows it. */
  record Doc(int n, String id, String host, List<String> tags, Long status, Integer code, Double price, Long ts,
      List<String> words) {}

  private static final List<Doc> DOCS = new ArrayList<>();
  private static IndexReader reader;
  private static IndexSearcher searcher;
  private static QueryDsl dsl;

  @BeforeAll
  static void index() throws Exception {
    Random r = new Random(SEED);
    ByteBuffersDirectory full = new ByteBuffersDirectory();
    ByteBuffersDirectory docValuesOnly = new ByteBuffersDirectory();
    StandardAnalyzer analyzer = new StandardAnalyzer(CharArraySet.EMPTY_SET);
    try (IndexWriter w1 = new IndexWriter(full, new IndexWriterConfig(analyzer));
        IndexWriter w2 = new IndexWriter(docValuesOnly, new IndexWriterConfig(analyzer))) {
      for (int n = 0; n < 600; n++) {
        Doc d = randomDoc(r, n);
        DOCS.add(d);
        boolean dvOnly = n % 3 == 2;
        (dvOnly ? w2 : w1).addDocument(document(d, dvOnly));
        if (n % 97 == 0) {
          (dvOnly ? w2 : w1).commit(); // several segments
        }
      }
    }
    reader = new MultiReader(DirectoryReader.open(full), DirectoryReader.open(docValuesOnly));
    searcher = new IndexSearcher(reader);
    dsl = new QueryDsl(IndexMapping.of(JSON.readTree(MAPPING)), () -> NOW);
  }

  @AfterAll
  static void close() throws IOException {
    reader.close();
  }

  private static Doc randomDoc(Random r, int n) {
    String id = n % 2 == 0 ? Integer.toString(n) : "doc-" + n;
    String host = r.nextInt(10) < 8 ? HOSTS[r.nextInt(HOSTS.length)] : null;
    List<String> tags = new ArrayList<>();
    for (int i = r.nextInt(4); i > 0; i--) {
      tags.add(HOSTS[r.nextInt(HOSTS.length)]);
    }
    Long status = r.nextInt(10) < 8 ? (long) r.nextInt(-20, 21) : null;
    Integer code = r.nextInt(10) < 8 ? r.nextInt(-20, 21) : null;
    Double price = r.nextInt(10) < 8 ? r.nextInt(-20, 21) / 2.0 : null;
    Long ts = null;
    if (r.nextInt(10) < 9) {
      ts = switch (r.nextInt(3)) {
        case 0 -> T0 + r.nextLong(T1 - T0);
        case 1 -> LocalDate.ofEpochDay(LocalDate.of(2024, 1, 1).toEpochDay() + r.nextInt(90))
            .atStartOfDay(ZoneId.of(ZONES[r.nextInt(ZONES.length)])).toInstant().toEpochMilli() + r.nextInt(-1, 2);
        default -> NOW - r.nextLong(30L * 86_400_000L);
      };
    }
    List<String> words = new ArrayList<>();
    for (int i = r.nextInt(6); i > 0; i--) {
      words.add(WORDS[r.nextInt(WORDS.length)]);
    }
    return new Doc(n, id, host, tags, status, code, price, ts, words);
  }

  private static Document document(Doc d, boolean dvOnly) {
    Document doc = new Document();
    doc.add(new NumericDocValuesField("n", d.n()));
    doc.add(new StringField("_id", DocumentId.encode(d.id()), Field.Store.NO));
    List<String> keywords = new ArrayList<>(d.tags());
    if (d.host() != null) {
      keyword(doc, "host", d.host(), dvOnly);
    }
    for (String t : keywords) {
      keyword(doc, "tags", t, dvOnly);
    }
    if (d.status() != null) {
      if (!dvOnly) {
        doc.add(new LongPoint("status", d.status()));
      }
      doc.add(new SortedNumericDocValuesField("status", d.status()));
    }
    if (d.code() != null) {
      if (!dvOnly) {
        doc.add(new IntPoint("code", d.code()));
      }
      doc.add(new SortedNumericDocValuesField("code", d.code()));
    }
    if (d.price() != null) {
      if (!dvOnly) {
        doc.add(new DoublePoint("price", d.price()));
      }
      doc.add(new SortedNumericDocValuesField("price", NumericUtils.doubleToSortableLong(d.price())));
    }
    if (d.ts() != null) {
      if (!dvOnly) {
        doc.add(new LongPoint("ts", d.ts()));
      }
      doc.add(new SortedNumericDocValuesField("ts", d.ts()));
    }
    if (!d.words().isEmpty()) {
      StringBuilder text = new StringBuilder();
      for (String w : d.words()) {
        text.append(text.isEmpty() ? "" : " ").append(d.n() % 2 == 0 ? w.toUpperCase(Locale.ROOT) : w);
      }
      doc.add(new TextField("msg", text.toString(), Field.Store.NO));
    }
    return doc;
  }

  private static void keyword(Document doc, String field, String value, boolean dvOnly) {
    if (!dvOnly) {
      doc.add(new StringField(field, value, Field.Store.NO));
    }
    doc.add(new SortedSetDocValuesField(field, new BytesRef(value)));
  }

  /** The documents (by number) {@code query} matches. */
  private static Set<Integer> search(Query query) throws IOException {
    Set<Integer> hits = new TreeSet<>();
    searcher.search(query, new SimpleCollector() {
      private NumericDocValues n;

      @Override
      protected void doSetNextReader(LeafReaderContext context) throws IOException {
        n = context.reader().getNumericDocValues("n");
      }

      @Override
      public void collect(int doc) throws IOException {
        n.advanceExact(doc);
        hits.add((int) n.longValue());
      }

      @Override
      public ScoreMode scoreMode() {
        return ScoreMode.COMPLETE_NO_SCORES;
      }
    });
    return hits;
  }

  private static Set<Integer> expected(Predicate<Doc> p) {
    Set<Integer> out = new TreeSet<>();
    for (Doc d : DOCS) {
      if (p.test(d)) {
        out.add(d.n());
      }
    }
    return out;
  }

  private static JsonNode json(String s) {
    try {
      return JSON.readTree(s);
    } catch (IOException e) {
      throw new IllegalArgumentException(s, e);
    }
  }

  /** A query and what it matches. */
  record Case(String json, Predicate<Doc> matches) {}

  private static void check(Case c) throws IOException {
    Query q = dsl.toQuery(json(c.json()));
    assertEquals(expected(c.matches()), search(q), c.json() + " -> " + q);
  }

  private static String q(String s) {
    return JSON.valueToTree(s).toString();
  }

  private static boolean hasWord(Doc d, String w) {
    return d.words().contains(w);
  }

  // --- random leaf queries ---

  private static Case randomLeaf(Random r) {
    switch (r.nextInt(16)) {
      case 0 -> {
        String h = r.nextInt(8) == 0 ? "nohost" : HOSTS[r.nextInt(HOSTS.length)];
        return r.nextBoolean() ? new Case("{\"term\": {\"host\": " + q(h) + "}}", d -> h.equals(d.host()))
            : new Case("{\"term\": {\"tags\": {\"value\": " + q(h) + ", \"boost\": 2}}}", d -> d.tags().contains(h));
      }
      case 1 -> {
        long v = r.nextInt(-22, 23);
        boolean decimal = r.nextInt(4) == 0;
        String value = decimal ? v + ".5" : r.nextBoolean() ? Long.toString(v) : q(Long.toString(v));
        return new Case("{\"term\": {\"status\": " + value + "}}", d -> !decimal && d.status() != null && d.status() == v);
      }
      case 2 -> {
        List<String> hs = new ArrayList<>();
        for (int i = r.nextInt(1, 4); i > 0; i--) {
          hs.add(HOSTS[r.nextInt(HOSTS.length)]);
        }
        String field = r.nextBoolean() ? "host" : "tags";
        return new Case("{\"terms\": {\"" + field + "\": " + JSON.valueToTree(hs) + "}}", d -> field.equals("host")
            ? hs.contains(d.host()) : d.tags().stream().anyMatch(hs::contains));
      }
      case 3 -> {
        int[] vs = r.ints(r.nextInt(1, 5), -20, 21).toArray();
        boolean code = r.nextBoolean();
        return new Case("{\"terms\": {\"" + (code ? "code" : "status") + "\": " + Arrays.toString(vs) + ", \"boost\": 3}}",
            d -> Arrays.stream(vs).anyMatch(v -> code ? d.code() != null && d.code() == v
                : d.status() != null && d.status() == v));
      }
      case 4 -> {
        double[] vs = {r.nextInt(-20, 21) / 2.0, r.nextInt(-20, 21) / 2.0};
        return new Case("{\"terms\": {\"price\": " + Arrays.toString(vs) + "}}",
            d -> d.price() != null && (d.price() == vs[0] || d.price() == vs[1]));
      }
      case 5 -> {
        return numericRange(r);
      }
      case 6, 7 -> {
        return dateRange(r);
      }
      case 8 -> {
        String lo = HOSTS[r.nextInt(HOSTS.length)];
        String hi = HOSTS[r.nextInt(HOSTS.length)];
        boolean gte = r.nextBoolean();
        boolean lte = r.nextBoolean();
        return new Case("{\"range\": {\"host\": {\"" + (gte ? "gte" : "gt") + "\": " + q(lo) + ", \"" + (lte ? "lte" : "lt")
            + "\": " + q(hi) + "}}}", d -> d.host() != null && (gte ? d.host().compareTo(lo) >= 0
                : d.host().compareTo(lo) > 0) && (lte ? d.host().compareTo(hi) <= 0 : d.host().compareTo(hi) < 0));
      }
      case 9 -> {
        String[] fields = {"host", "tags", "status", "code", "price", "ts", "msg", "nofield"};
        String f = fields[r.nextInt(fields.length)];
        return new Case("{\"exists\": {\"field\": \"" + f + "\"}}", d -> switch (f) {
          case "host" -> d.host() != null;
          case "tags" -> !d.tags().isEmpty();
          case "status" -> d.status() != null;
          case "code" -> d.code() != null;
          case "price" -> d.price() != null;
          case "ts" -> d.ts() != null;
          case "msg" -> !d.words().isEmpty();
          default -> false;
        });
      }
      case 10 -> {
        String p = HOSTS[r.nextInt(HOSTS.length)].substring(0, r.nextInt(1, 5));
        boolean ci = r.nextBoolean();
        String pattern = p.replace('e', '?') + "*";
        if (r.nextBoolean()) {
          return new Case("{\"prefix\": {\"host\": {\"value\": " + q(p) + ", \"case_insensitive\": " + ci + "}}}",
              d -> d.host() != null && (ci ? d.host().toLowerCase(Locale.ROOT).startsWith(p.toLowerCase(Locale.ROOT))
                  : d.host().startsWith(p)));
        }
        String regex = pattern.replace("-", "\\-").replace("?", ".").replace("*", ".*");
        return new Case("{\"wildcard\": {\"host\": {\"" + (r.nextBoolean() ? "value" : "wildcard") + "\": " + q(pattern)
            + ", \"case_insensitive\": " + ci + "}}}", d -> d.host() != null
                && (ci ? d.host().toLowerCase(Locale.ROOT).matches(regex.toLowerCase(Locale.ROOT)) : d.host().matches(regex)));
      }
      case 11 -> {
        List<String> ids = new ArrayList<>();
        for (int i = r.nextInt(1, 6); i > 0; i--) {
          int n = r.nextInt(DOCS.size() + 10);
          ids.add(n % 2 == 0 ? Integer.toString(n) : "doc-" + n);
        }
        return new Case("{\"ids\": {\"values\": " + JSON.valueToTree(ids) + "}}", d -> ids.contains(d.id()));
      }
      case 12, 13 -> {
        List<String> ws = new ArrayList<>(new TreeSet<>(List.of(WORDS[r.nextInt(WORDS.length)],
            WORDS[r.nextInt(WORDS.length)], WORDS[r.nextInt(WORDS.length)])));
        String text = String.join(" ", ws).toUpperCase(Locale.ROOT);
        return switch (r.nextInt(4)) {
          case 0 -> new Case("{\"match\": {\"msg\": " + q(text) + "}}", d -> ws.stream().anyMatch(w -> hasWord(d, w)));
          case 1 -> {
            // with and there are no optional clauses: a positive minimum_should_match matches nothing (as the node)
            String msm = List.of("", "1", "2", "\"50%\"", "-1").get(r.nextInt(5));
            boolean none = ws.size() > 1 && (msm.equals("1") || msm.equals("2"));
            yield new Case("{\"match\": {\"msg\": {\"query\": " + q(text) + ", \"operator\": \"and\""
                + (msm.isEmpty() ? "" : ", \"minimum_should_match\": " + msm) + "}}}",
                d -> !none && ws.stream().allMatch(w -> hasWord(d, w)));
          }
          case 2 -> {
            int msm = r.nextInt(-2, 4);
            int need = Math.max(1, msm < 0 ? ws.size() + msm : msm);
            yield new Case("{\"match\": {\"msg\": {\"query\": " + q(text) + ", \"minimum_should_match\": " + msm + "}}}",
                d -> ws.stream().filter(w -> hasWord(d, w)).count() >= (ws.size() == 1 ? 1 : need));
          }
          default -> {
            String a = WORDS[r.nextInt(WORDS.length)];
            String b = WORDS[r.nextInt(WORDS.length)];
            yield new Case("{\"match_phrase\": {\"msg\": " + q(a + " " + b) + "}}", d -> {
              for (int i = 0; i + 1 < d.words().size(); i++) {
                if (d.words().get(i).equals(a) && d.words().get(i + 1).equals(b)) {
                  return true;
                }
              }
              return false;
            });
          }
        };
      }
      case 14 -> {
        String h = HOSTS[r.nextInt(HOSTS.length)];
        return switch (r.nextInt(4)) {
          case 0 -> new Case("{\"query_string\": {\"query\": \"host:" + h + "\"}}", d -> h.equals(d.host()));
          case 1 -> new Case("{\"query_string\": {\"query\": \"*\", \"analyze_wildcard\": true}}", d -> true);
          case 2 -> new Case("{\"query_string\": {\"query\": \"ERROR login\", \"default_field\": \"msg\","
              + " \"default_operator\": \"AND\"}}", d -> hasWord(d, "error") && hasWord(d, "login"));
          default -> new Case("{\"simple_query_string\": {\"query\": \"error + -login\", \"fields\": [\"msg\"],"
              + " \"default_operator\": \"and\"}}",
              d -> hasWord(d, "error") && !hasWord(d, "login"));
        };
      }
      default -> {
        String h = HOSTS[r.nextInt(HOSTS.length)];
        String w = WORDS[r.nextInt(WORDS.length)];
        return switch (r.nextInt(4)) {
          case 0 -> new Case("{\"multi_match\": {\"query\": " + q(h) + ", \"fields\": [\"host^2\", \"tags\"]}}",
              d -> h.equals(d.host()) || d.tags().contains(h));
          case 1 -> new Case("{\"multi_match\": {\"query\": " + q(w) + ", \"fields\": [\"ms*\", \"host\"],"
              + " \"tie_breaker\": 0.3}}", d -> hasWord(d, w) || w.equals(d.host()));
          case 2 -> new Case("{\"match_all\": {\"boost\": 1.5}}", d -> true);
          default -> new Case("{\"match_none\": {}}", d -> false);
        };
      }
    }
  }

  private static Case numericRange(Random r) {
    String[] fields = {"status", "code", "price"};
    String f = fields[r.nextInt(3)];
    double lo = r.nextInt(-45, 46) / 2.0;
    double hi = lo + r.nextInt(0, 30) / 2.0;
    boolean hasLo = r.nextInt(5) > 0;
    boolean hasHi = r.nextInt(5) > 0;
    boolean gte = r.nextBoolean();
    boolean lte = r.nextBoolean();
    StringBuilder json = new StringBuilder("{\"range\": {\"" + f + "\": {");
    if (hasLo) {
      json.append("\"").append(gte ? "gte" : "gt").append("\": ").append(r.nextBoolean() ? lo : q(Double.toString(lo)));
    }
    if (hasHi) {
      json.append(hasLo ? ", " : "").append("\"").append(lte ? "lte" : "lt").append("\": ").append(hi);
    }
    // a relation, which the node accepts and which changes nothing on a field of single values (issue 54)
    String relation = List.of("", "", "intersects", "CONTAINS", "within").get(r.nextInt(5));
    json.append(relation.isEmpty() ? "" : ", \"relation\": " + q(relation)).append(", \"boost\": 1.0}}}");
    if (!hasLo && !hasHi) {
      json = new StringBuilder("{\"range\": {\"" + f + "\": {\"boost\": 1.0}}}");
    }
    return new Case(json.toString(), d -> {
      Double v = switch (f) {
        case "status" -> d.status() == null ? null : d.status().doubleValue();
        case "code" -> d.code() == null ? null : d.code().doubleValue();
        default -> d.price();
      };
      return v != null && (!hasLo || (gte ? v >= lo : v > lo)) && (!hasHi || (lte ? v <= hi : v < hi));
    });
  }

  /** A date bound in one of several forms, with the instants it means rounded down and up. */
  record DateBound(String json, long down, long up) {}

  private static DateBound dateBound(Random r, ZoneId zone) {
    long t = T0 + r.nextLong(T1 - T0);
    ZonedDateTime z = Instant.ofEpochMilli(t).atZone(zone);
    switch (r.nextInt(7)) {
      case 0 -> { // read in the zone as the node reads it: the local date-time the number names in UTC (issue 54)
        long local = LocalDateTime.ofInstant(Instant.ofEpochMilli(t), ZoneOffset.UTC).atZone(zone).toInstant()
            .toEpochMilli();
        return new DateBound(Long.toString(t), local, local);
      }
      case 1 -> {
        return new DateBound(q(Instant.ofEpochMilli(t).toString()), t, t);
      }
      case 2 -> {
        LocalDate d = z.toLocalDate();
        return new DateBound(q(d.toString()), d.atStartOfDay(zone).toInstant().toEpochMilli(),
            d.plusDays(1).atStartOfDay(zone).toInstant().toEpochMilli() - 1);
      }
      case 3 -> {
        LocalDate d = z.toLocalDate().withDayOfMonth(1);
        // a month alone rounds up as Elasticsearch fills missing components: the first day, its last millisecond
        return new DateBound(q(d.toString().substring(0, 7)), d.atStartOfDay(zone).toInstant().toEpochMilli(),
            d.plusDays(1).atStartOfDay(zone).toInstant().toEpochMilli() - 1);
      }
      case 4 -> {
        LocalDateTime m = z.toLocalDateTime().withSecond(0).withNano(0);
        long down = m.atZone(zone).toInstant().toEpochMilli();
        return new DateBound(q(m.format(DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm"))), down,
            m.withSecond(59).withNano(999_000_000).atZone(zone).toInstant().toEpochMilli());
      }
      case 5 -> {
        int days = r.nextInt(0, 40);
        LocalDate d = Instant.ofEpochMilli(NOW).atZone(zone).toLocalDate().minusDays(days);
        return new DateBound(q("now-" + days + "d/d"), d.atStartOfDay(zone).toInstant().toEpochMilli(),
            d.plusDays(1).atStartOfDay(zone).toInstant().toEpochMilli() - 1);
      }
      default -> {
        long h = r.nextInt(0, 200);
        long v = Instant.ofEpochMilli(NOW).minusSeconds(h * 3600).toEpochMilli();
        return new DateBound(q("now-" + h + "h"), v, v);
      }
    }
  }

  private static Case dateRange(Random r) {
    String tz = ZONES[r.nextInt(ZONES.length)];
    ZoneId zone = ZoneId.of(tz);
    if (r.nextInt(4) == 0) { // as Grafana sends it
      long a = T0 + r.nextLong(T1 - T0);
      long b = a + r.nextLong(20L * 86_400_000L);
      boolean asString = r.nextBoolean();
      return new Case("{\"range\": {\"ts\": {\"gte\": " + (asString ? q(Long.toString(a)) : a) + ", \"lte\": " + b
          + ", \"format\": \"epoch_millis\"}}}", d -> d.ts() != null && d.ts() >= a && d.ts() <= b);
    }
    DateBound lo = r.nextInt(6) == 0 ? null : dateBound(r, zone);
    DateBound hi = r.nextInt(6) == 0 ? null : dateBound(r, zone);
    boolean gte = r.nextBoolean();
    boolean lte = r.nextBoolean();
    List<String> parts = new ArrayList<>();
    if (lo != null) {
      parts.add("\"" + (gte ? "gte" : "gt") + "\": " + lo.json());
    }
    if (hi != null) {
      parts.add("\"" + (lte ? "lte" : "lt") + "\": " + hi.json());
    }
    parts.add("\"time_zone\": " + q(tz));
    return new Case("{\"range\": {\"ts\": {" + String.join(", ", parts) + "}}}", d -> d.ts() != null
        && (lo == null || (gte ? d.ts() >= lo.down() : d.ts() > lo.up()))
        && (hi == null || (lte ? d.ts() <= hi.up() : d.ts() < hi.down())));
  }

  /**
   * As a 9.3.3 node: a term out of an integer field's range matches nothing; among terms it fails the shard
   * ({@code query_shard_exception}); a value that is not a number fails it too.
   */
  @Test
  void numbersAnIntegerFieldCannotHold() throws IOException {
    check(new Case("{\"term\": {\"code\": 99999999999}}", d -> false));
    for (String bad : List.of("{\"terms\": {\"code\": [99999999999, 1]}}", "{\"term\": {\"code\": \"abc\"}}",
        "{\"range\": {\"status\": {\"gte\": \"x\"}}}")) {
      DslException e = assertThrows(DslException.class, () -> dsl.toQuery(json(bad)));
      assertEquals("search_phase_execution_exception", e.type(), bad);
      assertEquals("query_shard_exception", e.rootCauseType(), bad);
    }
  }

  /** As a 9.3.3 node: with {@code and}, {@code minimum_should_match} counts optional clauses, of which there are none. */
  @Test
  void matchWithAndCountsNoOptionalClauses() throws IOException {
    String and = "{\"match\": {\"msg\": {\"query\": \"error login\", \"operator\": \"and\", \"minimum_should_match\": ";
    Predicate<Doc> both = d -> hasWord(d, "error") && hasWord(d, "login");
    assertTrue(!expected(both).isEmpty());
    check(new Case(and + "1}}}", d -> false));
    check(new Case(and + "3}}}", d -> false));
    check(new Case(and + "\"100%\"}}}", both));
    check(new Case(and + "-1}}}", both));
    check(new Case(and + "0}}}", both));
    check(new Case("{\"match\": {\"msg\": {\"query\": \"error login\", \"minimum_should_match\": 3}}}", d -> false));
    check(new Case("{\"match\": {\"msg\": {\"query\": \"error\", \"operator\": \"and\", \"minimum_should_match\": 2}}}",
        d -> hasWord(d, "error"))); // one term: no Boolean query to count in
  }

  /**
   * {@code query_string} reads date bounds by the same rule as {@code range}: a date missing its smaller units rounded
   * up as an inclusive upper or exclusive lower bound, date math, a date alone its whole span; and Elasticsearch's
   * one-sided ranges ({@code ts:>=...}, {@code status:<5}); in the query's {@code time_zone} where it names one.
   */
  @Test
  void queryStringDatesRoundAsTheRangeQueryDoes() throws IOException {
    Random r = new Random(SEED + 7);
    for (int i = 0; i < 300; i++) {
      String tz = r.nextBoolean() ? null : ZONES[r.nextInt(ZONES.length)];
      ZoneId zone = ZoneId.of(tz == null ? "UTC" : tz);
      DateBound lo = dateBound(r, zone);
      DateBound hi = dateBound(r, zone);
      String a = json(lo.json()).asText();
      String b = json(hi.json()).asText();
      boolean gte = r.nextBoolean();
      boolean lte = r.nextBoolean();
      Case c = switch (r.nextInt(6)) {
        case 0 -> new Case("ts:" + (gte ? "[" : "{") + a + " TO " + b + (lte ? "]" : "}"), d -> d.ts() != null
            && (gte ? d.ts() >= lo.down() : d.ts() > lo.up()) && (lte ? d.ts() <= hi.up() : d.ts() < hi.down()));
        case 1 -> new Case("ts:" + (gte ? ">=" : ">") + a, d -> d.ts() != null
            && (gte ? d.ts() >= lo.down() : d.ts() > lo.up()));
        case 2 -> new Case("ts:" + (lte ? "<=" : "<") + b, d -> d.ts() != null
            && (lte ? d.ts() <= hi.up() : d.ts() < hi.down()));
        case 3 -> new Case("ts:" + (a.matches("[0-9-]+") ? a : "\"" + a + "\""), d -> d.ts() != null
            && d.ts() >= lo.down() && d.ts() <= lo.up());
        case 4 -> new Case("ts:[" + a + " TO *]", d -> d.ts() != null && d.ts() >= lo.down());
        default -> {
          int v = r.nextInt(-21, 22);
          String f = r.nextBoolean() ? "status" : "code";
          String op = List.of(">", ">=", "<", "<=").get(r.nextInt(4));
          yield new Case(f + ":" + op + v + " OR host:nohost", d -> {
            Long x = f.equals("status") ? d.status() : d.code() == null ? null : (long) d.code();
            return x != null && switch (op) {
              case ">" -> x > v;
              case ">=" -> x >= v;
              case "<" -> x < v;
              default -> x <= v;
            };
          });
        }
      };
      check(new Case("{\"query_string\": {\"query\": " + q(c.json()) + (tz == null ? "" : ", \"time_zone\": " + q(tz))
          + "}}", c.matches()));
    }
  }

  @Test
  void leafQueriesMatchWhatElasticsearchWould() throws IOException {
    Random r = new Random(SEED);
    for (int i = 0; i < 3000; i++) {
      check(randomLeaf(r));
    }
  }

  /** Random bool trees: must, filter, should (with and without minimum_should_match) and must_not. */
  @Test
  void boolQueriesCombineAsElasticsearchDoes() throws IOException {
    Random r = new Random(SEED + 1);
    for (int i = 0; i < 1000; i++) {
      check(randomBool(r, 2));
    }
  }

  private static Case randomBool(Random r, int depth) {
    List<String> json = new ArrayList<>();
    List<Predicate<Doc>> must = new ArrayList<>();
    List<Predicate<Doc>> should = new ArrayList<>();
    List<Predicate<Doc>> mustNot = new ArrayList<>();
    String[] occurs = {"must", "filter", "should", "must_not"};
    for (String occur : occurs) {
      int n = r.nextInt(0, 3);
      if (n == 0) {
        continue;
      }
      List<String> clauses = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        Case c = depth > 0 && r.nextInt(4) == 0 ? randomBool(r, depth - 1) : randomLeaf(r);
        clauses.add(c.json());
        (occur.equals("should") ? should : occur.equals("must_not") ? mustNot : must).add(c.matches());
      }
      json.add("\"" + occur + "\": " + (n == 1 && r.nextBoolean() ? clauses.get(0) : clauses.toString()));
    }
    int msm = should.isEmpty() ? 0 : must.isEmpty() ? 1 : 0;
    if (!should.isEmpty() && r.nextBoolean()) {
      int k = should.size();
      switch (r.nextInt(4)) {
        case 0 -> {
          msm = r.nextInt(0, k + 1);
          json.add("\"minimum_should_match\": " + msm);
        }
        case 1 -> {
          int neg = r.nextInt(1, k + 1);
          msm = k - neg;
          json.add("\"minimum_should_match\": " + (-neg));
        }
        case 2 -> {
          int pct = r.nextInt(0, 101);
          msm = k * pct / 100;
          json.add("\"minimum_should_match\": \"" + pct + "%\"");
        }
        default -> {
          int pct = r.nextInt(1, 101);
          msm = k - k * pct / 100;
          json.add("\"minimum_should_match\": \"-" + pct + "%\"");
        }
      }
      if (msm == 0 && must.isEmpty() && mustNot.isEmpty()) {
        msm = 1; // Lucene (and Elasticsearch): a pure disjunction needs one clause
      } else if (msm == 0 && must.isEmpty()) {
        msm = 1;
      }
    }
    if (r.nextInt(5) == 0) {
      json.add("\"boost\": 2");
    }
    int need = msm;
    boolean empty = json.isEmpty();
    Case bool = new Case("{\"bool\": {" + String.join(", ", json) + "}}", d -> {
      if (empty) {
        return true;
      }
      return must.stream().allMatch(p -> p.test(d)) && mustNot.stream().noneMatch(p -> p.test(d))
          && should.stream().filter(p -> p.test(d)).count() >= need;
    });
    if (r.nextInt(5) == 0) {
      return new Case("{\"constant_score\": {\"filter\": " + bool.json() + ", \"boost\": 1.2}}", bool.matches());
    }
    return bool;
  }

  /** Terms and ranges on keyword, number and date fields also run on segments with doc values only. */
  @Test
  void termsAndRangesRunFromDocValues() {
    for (String json : List.of("{\"term\": {\"host\": \"web-01\"}}", "{\"term\": {\"status\": 3}}",
        "{\"terms\": {\"host\": [\"a\", \"b\"]}}", "{\"terms\": {\"code\": [1, 2]}}", "{\"terms\": {\"price\": [1.5]}}",
        "{\"range\": {\"ts\": {\"gte\": \"now-1d\"}}}", "{\"range\": {\"status\": {\"lt\": 4}}}",
        "{\"range\": {\"host\": {\"gte\": \"a\"}}}", "{\"term\": {\"ts\": \"2024-03-01\"}}")) {
      Query q = dsl.toQuery(json(json));
      assertEquals("IndexedOrDocValuesQuery", q.getClass().getSimpleName(), json + " -> " + q);
    }
  }

  @Test
  void termsOnDatesAndDecimalsFollowElasticsearch() throws IOException {
    // a term on a date is the range of its rounding: a day matches the whole day
    long start = LocalDate.of(2024, 2, 10).atStartOfDay(ZoneId.of("UTC")).toInstant().toEpochMilli();
    check(new Case("{\"term\": {\"ts\": \"2024-02-10\"}}", d -> d.ts() != null && d.ts() >= start
        && d.ts() < start + 86_400_000L));
    check(new Case("{\"range\": {\"status\": {\"gte\": 1.5, \"lte\": 4.5}}}", d -> d.status() != null
        && d.status() >= 2 && d.status() <= 4));
    check(new Case("{\"range\": {\"code\": {\"gt\": 1.5, \"lt\": 4.5}}}", d -> d.code() != null && d.code() >= 2
        && d.code() <= 4));
    check(new Case("{\"term\": {\"nofield\": \"x\"}}", d -> false));
    check(new Case("{\"range\": {\"nofield\": {\"gte\": 1}}}", d -> false));
    check(new Case("{\"match\": {\"nofield\": \"x\"}}", d -> false));
    check(new Case("{\"match\": {\"host\": \"web-01\"}}", d -> "web-01".equals(d.host())));
    check(new Case("{\"match_phrase\": {\"host\": \"web-01\"}}", d -> "web-01".equals(d.host())));
    check(new Case("{\"match\": {\"status\": \"7\"}}", d -> d.status() != null && d.status() == 7));
    check(new Case("{\"bool\": {\"must_not\": {\"term\": {\"host\": \"web-01\"}}}}", d -> !"web-01".equals(d.host())));
    check(new Case("{\"bool\": {}}", d -> true));
    check(new Case("{\"query_string\": {\"query\": \"*:*\"}}", d -> true));
    check(new Case("{\"term\": {\"msg\": \"error\"}}", d -> hasWord(d, "error")));
    check(new Case("{\"term\": {\"msg\": \"ERROR\"}}", d -> false)); // not analyzed
    check(new Case("{\"term\": {\"msg\": {\"value\": \"ERROR\", \"case_insensitive\": true}}}", d -> hasWord(d, "error")));
  }

  private static DslException refused(String json) {
    DslException e = assertThrows(DslException.class, () -> dsl.toQuery(json(json)), json);
    assertEquals(400, e.status(), json);
    return e;
  }

  private static void refused(String json, String... named) {
    DslException e = refused(json);
    for (String n : named) {
      assertTrue(e.getMessage().contains(n), json + ": " + e.getMessage());
    }
  }

  /** A field named and matched by a pattern has the product of the boosts, as a 9.3.3 node weighs it (issue 54). */
  @Test
  void aPatternsBoostMultipliesANamedFieldsBoost() {
    assertEquals(dsl.toQuery(json("{\"multi_match\": {\"query\": \"error\", \"fields\": [\"msg^3\"]}}")),
        dsl.toQuery(json("{\"multi_match\": {\"query\": \"error\", \"fields\": [\"msg^2\", \"ms*^1.5\"]}}")));
    assertEquals(dsl.toQuery(json("{\"multi_match\": {\"query\": \"error\", \"fields\": [\"msg^1.5\"]}}")),
        dsl.toQuery(json("{\"multi_match\": {\"query\": \"error\", \"fields\": [\"msg\", \"m*^1.5\"]}}")));
    assertEquals(dsl.toQuery(json("{\"multi_match\": {\"query\": \"error\", \"fields\": [\"msg^3\"]}}")),
        dsl.toQuery(json("{\"multi_match\": {\"query\": \"error\", \"fields\": [\"msg^2\", \"msg^3\"]}}")));
    // matched by two patterns and named: all three multiply (the node scores 1.5 times a boost of 2; seed 1319687963
    // #740 of the reference generator)
    assertEquals(dsl.toQuery(json("{\"multi_match\": {\"query\": \"error\", \"fields\": [\"msg^3\"]}}")),
        dsl.toQuery(json("{\"multi_match\": {\"query\": \"error\", \"fields\": [\"ms*\", \"msg*^1.5\", \"msg^2\"]}}")));
  }

  /**
   * A {@code simple_query_string} phrase over two fields scores as its best field, a term as the sum of its fields', as
   * a 9.3.3 node scores them (seed 1230717092 #857 of the reference generator: the phrase over {@code message^2} and
   * {@code message.raw} scored 46.55 on the node, the text field's alone, and 51.36 summed).
   */
  @Test
  void aSimpleQueryStringPhraseOverFieldsScoresItsBestFieldAndATermTheirSum() {
    String fields = "\"fields\": [\"msg^2\", \"host\"]";
    Query phrase = dsl.toQuery(json("{\"simple_query_string\": {\"query\": \"\\\"disk full\\\"\", " + fields + "}}"));
    // a disjunction of the fields' phrases without a tie breaker: ((msg:"disk full")^2.0 | host:disk full)
    assertTrue(phrase.toString().contains("\"disk full\")^2.0 | ") && !phrase.toString().contains(")~"),
        phrase.toString());
    Query term = dsl.toQuery(json("{\"simple_query_string\": {\"query\": \"disk\", " + fields + "}}"));
    assertFalse(term.toString().contains(" | "), "a term's fields add up: " + term);
  }

  /** Negatives alone match every other document and score 0, as on a 9.3.3 node (issue 54: NOT x has max_score 0). */
  @Test
  void negativesAloneScoreZero() throws IOException {
    Query q = dsl.toQuery(json("{\"query_string\": {\"query\": \"NOT host:web-01\"}}"));
    org.apache.lucene.search.TopDocs top = searcher.search(q, 5);
    assertTrue(top.scoreDocs.length > 0);
    for (org.apache.lucene.search.ScoreDoc d : top.scoreDocs) {
      assertEquals(0f, d.score, q.toString());
    }
  }

  @Test
  void refusalsNameTheClauseParameterOrField() {
    refused("{\"fuzzy\": {\"host\": \"web\"}}", "[fuzzy]", "not supported", "bool");
    refused("{\"nested\": {\"path\": \"user\", \"query\": {\"match_all\": {}}}}", "[nested]");
    refused("{\"range\": {\"status\": {\"gte\": 1, \"foo\": 2}}}", "[range]", "[foo]");
    refused("{\"range\": {\"status\": {\"from\": 1, \"to\": 2}}}", "[range]", "[from]");
    refused("{\"term\": {\"host\": {\"value\": \"a\", \"bar\": 1}}}", "[term]", "[bar]");
    refused("{\"bool\": {\"must\": [], \"should_not\": []}}", "[bool]", "[should_not]");
    refused("{\"match\": {\"msg\": {\"query\": \"a\", \"fuzziness\": 2}}}", "[match]", "[fuzziness]");
    refused("{\"multi_match\": {\"query\": \"a\", \"type\": \"phrase\", \"fields\": [\"msg\"]}}", "[multi_match]", "[phrase]");
    refused("{\"term\": {\"user.name\": \"bob\"}}", "user.name", "nested");
    refused("{\"term\": {\"ip\": \"10.0.0.1\"}}", "ip");
    refused("{\"range\": {\"flag\": {\"gte\": true}}}", "flag");
    refused("{\"query_string\": {\"query\": \"error\"}}", "query_string", "field");
    refused("{\"term\": {\"host\": \"a\", \"tags\": \"b\"}}", "[term]", "host", "tags");
    refused("{\"range\": {\"ts\": {\"gte\": \"yesterday\"}}}", "yesterday");
    refused("{\"range\": {\"ts\": {\"gte\": \"2024-01-01\", \"time_zone\": \"Mars/Base\"}}}", "Mars/Base");
    refused("{\"range\": {\"status\": {\"gte\": 1, \"time_zone\": \"UTC\"}}}", "[range]", "time_zone", "status");
    refused("{\"range\": {\"status\": {\"gte\": 1, \"relation\": \"bogus\"}}}", "[range]", "bogus", "relation");
    refused("{\"term\": {\"status\": \"abc\"}}", "status", "abc");
    refused("{\"terms\": {\"host\": {\"index\": \"i\", \"id\": \"1\", \"path\": \"p\"}}}", "[terms]");
    refused("{\"prefix\": {\"status\": \"1\"}}", "[prefix]", "status");
    refused("{\"simple_query_string\": {\"query\": \"foo~2\", \"fields\": [\"msg\"]}}", "simple_query_string");
    refused("{\"match\": {}}", "[match]");
    refused("{}");
  }
}
