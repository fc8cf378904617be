/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.elasticsearch.IndexMapping;
import java.io.IOException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.LongUnaryOperator;
import java.util.function.Predicate;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.document.SortedSetDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.NumericUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every aggregation over random documents (fixed seed) in several segments, searched one slice per segment, against
 * the same aggregation computed by brute force over the documents in Java.
 */
class AggregationsTest {
  private static final ObjectMapper M = new ObjectMapper();
  private static final long START = Instant.parse("2024-03-25T00:00:00Z").toEpochMilli();
  private static final long SPAN = 11 * 86_400_000L;
  private static final String[] TAGS = {"alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta", "iota",
      "kappa", "lambda", "mu"};
  private static final String[] STATUS = {"200", "404", "500", "301"};
  private static final DateTimeFormatter ISO =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSXXX", Locale.ROOT);
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

  /** One document: ts (null: none), tags, status (null: none), n values, price (null: none). */
  record Doc(Long ts, List<String> tags, String status, long[] ns, Double price) {}

  private static final List<Doc> DOCS = new ArrayList<>();
  private static ByteBuffersDirectory dir;
  private static DirectoryReader reader;
  private static IndexSearcher searcher;
  private static IndexMapping mapping;

  @BeforeAll
  static void index() throws IOException {
    Random random = new Random(20240331L);
    dir = new ByteBuffersDirectory();
    try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig().setMergePolicy(NoMergePolicy.INSTANCE))) {
      for (int i = 0; i < 3000; i++) {
        Long ts = random.nextInt(20) == 0 ? null : START + (long) (random.nextDouble() * SPAN);
        List<String> tags = new ArrayList<>();
        int nt = random.nextInt(4);
        for (int t = 0; t < nt; t++) {
          String tag = TAGS[(int) Math.min(TAGS.length - 1, Math.abs(random.nextGaussian()) * 4)];
          if (!tags.contains(tag)) { // sorted-set doc values keep a document's distinct values
            tags.add(tag);
          }
        }
        String status = random.nextInt(10) == 0 ? null : STATUS[random.nextInt(STATUS.length)];
        int nn = random.nextInt(8) == 0 ? 0 : random.nextInt(6) == 0 ? 2 : 1;
        long[] ns = new long[nn];
        for (int k = 0; k < nn; k++) {
          ns[k] = random.nextInt(300) - 50;
        }
        Double price = random.nextInt(7) == 0 ? null : random.nextInt(2000) * 0.25;
        Doc doc = new Doc(ts, tags, status, ns, price);
        DOCS.add(doc);
        Document d = new Document();
        if (ts != null) {
          d.add(new LongPoint("ts", ts));
          d.add(new SortedNumericDocValuesField("ts", ts));
        }
        for (String tag : tags) {
          d.add(new StringField("tag", tag, Field.Store.NO));
          d.add(new SortedSetDocValuesField("tag", new BytesRef(tag)));
        }
        if (status != null) {
          d.add(new StringField("status", status, Field.Store.NO));
          d.add(new SortedSetDocValuesField("status", new BytesRef(status)));
        }
        for (long n : ns) {
          d.add(new LongPoint("n", n));
          d.add(new SortedNumericDocValuesField("n", n));
        }
        if (price != null) {
          d.add(new SortedNumericDocValuesField("price", NumericUtils.doubleToSortableLong(price)));
        }
        w.addDocument(d);
        if (i % 700 == 699) {
          w.commit(); // several segments
        }
      }
    }
    reader = DirectoryReader.open(dir);
    assertTrue(reader.leaves().size() > 2);
    searcher = new IndexSearcher(reader, Runnable::run) {
      @Override
      protected LeafSlice[] slices(List<LeafReaderContext> leaves) {
        return IndexSearcher.slices(leaves, 1, 1, false); // a collector per segment: the reduce merges them
      }
    };
    mapping = IndexMapping.of(M.readTree("""
        {"properties": {"ts": {"type": "date"}, "tag": {"type": "keyword"}, "status": {"type": "keyword"},
          "n": {"type": "long"}, "price": {"type": "double"}, "body": {"type": "text"}}}"""));
  }

  @AfterAll
  static void close() throws IOException {
    reader.close();
    dir.close();
  }

  /** The test's query translator: {@code term} on a keyword, {@code range} on n. */
  private static Query query(JsonNode q) {
    if (q.has("term")) {
      Map.Entry<String, JsonNode> e = q.get("term").fields().next();
      return new TermQuery(new Term(e.getKey(), e.getValue().asText()));
    }
    if (q.has("range")) {
      JsonNode r = q.get("range").get("n");
      return LongPoint.newRangeQuery("n", r.get("gte").asLong(), r.get("lt").asLong() - 1);
    }
    if (q.has("match_all")) {
      return new MatchAllDocsQuery();
    }
    throw new IllegalArgumentException(q.toString());
  }

  private static Predicate<Doc> predicate(JsonNode q) {
    if (q.has("term")) {
      Map.Entry<String, JsonNode> e = q.get("term").fields().next();
      String v = e.getValue().asText();
      return e.getKey().equals("status") ? d -> v.equals(d.status()) : d -> d.tags().contains(v);
    }
    if (q.has("range")) {
      JsonNode r = q.get("range").get("n");
      long gte = r.get("gte").asLong();
      long lt = r.get("lt").asLong();
      return d -> {
        for (long n : d.ns()) {
          if (n >= gte && n < lt) {
            return true;
          }
        }
        return false;
      };
    }
    return d -> true;
  }

  private static ObjectNode run(String aggs, boolean typed) throws IOException {
    Aggregations a = Aggregations.parse(M.readTree(aggs), mapping, AggregationsTest::query);
    Aggregations.Result result = searcher.search(new MatchAllDocsQuery(), a.collectorManager());
    assertEquals(DOCS.size(), result.docCount());
    return result.toJson(typed);
  }

  private static void check(ObjectNode expected, String aggs) throws IOException {
    ObjectNode actual = run(aggs, false);
    assertEquals(M.readTree(expected.toString()), M.readTree(actual.toString()), () -> aggs + "\nexpected "
        + expected.toPrettyString() + "\nactual " + actual.toPrettyString());
  }

  // ---- brute force ----------------------------------------------------------------------------------------------

  private static ObjectNode obj() {
    return M.createObjectNode();
  }

  private static List<Double> nValues(List<Doc> docs) {
    List<Double> out = new ArrayList<>();
    for (Doc d : docs) {
      for (long n : d.ns()) {
        out.add((double) n);
      }
    }
    return out;
  }

  private static List<Double> prices(List<Doc> docs) {
    List<Double> out = new ArrayList<>();
    for (Doc d : docs) {
      if (d.price() != null) {
        out.add(d.price());
      }
    }
    return out;
  }

  private static ObjectNode metric(String type, List<Double> values) {
    ObjectNode o = obj();
    double sum = 0;
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    for (double v : values) {
      sum += v;
      min = Math.min(min, v);
      max = Math.max(max, v);
    }
    boolean none = values.isEmpty();
    switch (type) {
      case "min" -> putOrNull(o, "value", none ? null : min);
      case "max" -> putOrNull(o, "value", none ? null : max);
      case "avg" -> putOrNull(o, "value", none ? null : sum / values.size());
      case "sum" -> o.put("value", sum);
      case "value_count" -> o.put("value", values.size());
      default -> {
        o.put("count", values.size());
        putOrNull(o, "min", none ? null : min);
        putOrNull(o, "max", none ? null : max);
        putOrNull(o, "avg", none ? null : sum / values.size());
        o.put("sum", sum);
      }
    }
    return o;
  }

  private static void putOrNull(ObjectNode o, String field, Double v) {
    if (v == null) {
      o.putNull(field);
    } else {
      o.put(field, v);
    }
  }

  /** A sub-aggregation computed over a bucket's documents. */
  record Sub(String name, Function<List<Doc>, ObjectNode> compute) {}

  private static ObjectNode bucket(List<Doc> docs, List<Sub> subs) {
    ObjectNode b = obj();
    b.put("doc_count", docs.size());
    for (Sub s : subs) {
      b.set(s.name(), s.compute().apply(docs));
    }
    return b;
  }

  /**
   * Date histogram by brute force: {@code round} gives each timestamp's key; empty buckets (min_doc_count 0) are the
   * distinct keys of every {@code step} between the first and last key.
   */
  private static ObjectNode dateHistogram(List<Doc> docs, LongUnaryOperator round, long step, long minDocCount,
      Long boundsMin, Long boundsMax, ZoneId zone, List<Sub> subs) {
    TreeMap<Long, List<Doc>> byKey = new TreeMap<>();
    for (Doc d : docs) {
      if (d.ts() != null) {
        byKey.computeIfAbsent(round.applyAsLong(d.ts()), k -> new ArrayList<>()).add(d);
      }
    }
    if (minDocCount == 0) {
      TreeSet<Long> ends = new TreeSet<>(byKey.keySet());
      if (boundsMin != null) {
        ends.add(round.applyAsLong(boundsMin));
      }
      if (boundsMax != null) {
        ends.add(round.applyAsLong(boundsMax));
      }
      if (!ends.isEmpty()) {
        for (long t = ends.first(); t <= ends.last(); t += step) {
          byKey.computeIfAbsent(round.applyAsLong(t), k -> new ArrayList<>());
        }
      }
    }
    ArrayNode buckets = M.createArrayNode();
    byKey.forEach((key, ds) -> {
      if (ds.size() >= Math.max(minDocCount, 0)) {
        ObjectNode b = bucket(ds, subs);
        b.put("key_as_string", ISO.format(Instant.ofEpochMilli(key).atZone(zone)));
        b.put("key", key);
        buckets.add(b);
      }
    });
    ObjectNode o = obj();
    o.set("buckets", buckets);
    return o;
  }

  private static LongUnaryOperator fixed(long interval, ZoneOffset offset) {
    long off = offset.getTotalSeconds() * 1000L;
    return t -> Math.floorDiv(t + off, interval) * interval - off;
  }

  private static LongUnaryOperator local(Function<ZonedDateTime, ZonedDateTime> truncate, ZoneId zone) {
    return t -> truncate.apply(Instant.ofEpochMilli(t).atZone(zone)).toInstant().toEpochMilli();
  }

  private static ObjectNode terms(List<Doc> docs, Function<Doc, Collection<?>> values, int size,
      Comparator<Map.Entry<Object, List<Doc>>> order, List<Sub> subs) {
    return terms(docs, values, size, order, subs, false);
  }

  /** {@code everyTerm}: every value of the whole index has a bucket, 0 if no document of {@code docs} has it. */
  private static ObjectNode terms(List<Doc> docs, Function<Doc, Collection<?>> values, int size,
      Comparator<Map.Entry<Object, List<Doc>>> order, List<Sub> subs, boolean everyTerm) {
    Map<Object, List<Doc>> byTerm = new HashMap<>();
    if (everyTerm) {
      DOCS.forEach(d -> values.apply(d).forEach(v -> byTerm.put(v, new ArrayList<>())));
    }
    for (Doc d : docs) {
      for (Object v : new TreeSet<Object>(values.apply(d))) {
        byTerm.computeIfAbsent(v, k -> new ArrayList<>()).add(d);
      }
    }
    List<Map.Entry<Object, List<Doc>>> sorted = new ArrayList<>(byTerm.entrySet());
    sorted.sort(order);
    ObjectNode o = obj();
    o.put("doc_count_error_upper_bound", 0);
    long other = 0;
    for (int i = size; i < sorted.size(); i++) {
      other += sorted.get(i).getValue().size();
    }
    o.put("sum_other_doc_count", other);
    ArrayNode buckets = o.putArray("buckets");
    for (int i = 0; i < Math.min(size, sorted.size()); i++) {
      ObjectNode b = bucket(sorted.get(i).getValue(), subs);
      Object key = sorted.get(i).getKey();
      if (key instanceof String s) {
        b.put("key", s);
      } else if (key instanceof Long l) {
        b.put("key", l);
      } else {
        b.put("key", (Double) key);
      }
      buckets.add(b);
    }
    return o;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static final Comparator<Map.Entry<Object, List<Doc>>> BY_KEY =
      (a, b) -> ((Comparable) a.getKey()).compareTo(b.getKey());
  private static final Comparator<Map.Entry<Object, List<Doc>>> BY_COUNT =
      Comparator.<Map.Entry<Object, List<Doc>>>comparingInt(e -> -e.getValue().size()).thenComparing(BY_KEY);

  private static List<Object> longs(long[] values) {
    List<Object> out = new ArrayList<>();
    for (long v : values) {
      out.add(v);
    }
    return out;
  }

  // ---- tests ----------------------------------------------------------------------------------------------------

  @Test
  void dateHistogramFixedUtc() throws IOException {
    check(wrap("h", dateHistogram(DOCS, fixed(3_600_000L, ZoneOffset.UTC), 900_000L, 0, null, null, ZoneOffset.UTC,
        List.of())), """
        {"h": {"date_histogram": {"field": "ts", "fixed_interval": "1h"}}}""");
    check(wrap("h", dateHistogram(DOCS, fixed(30_000L, ZoneOffset.UTC), 30_000L, 1, null, null, ZoneOffset.UTC,
        List.of())), """
        {"h": {"date_histogram": {"field": "ts", "fixed_interval": "30s", "min_doc_count": 1}}}""");
  }

  @Test
  void dateHistogramCalendarUtcWithBounds() throws IOException {
    long min = Instant.parse("2024-03-20T10:00:00Z").toEpochMilli();
    long max = Instant.parse("2024-04-10T00:00:00Z").toEpochMilli();
    check(wrap("d", dateHistogram(DOCS, local(z -> z.truncatedTo(ChronoUnit.DAYS), ZoneOffset.UTC), 3_600_000L, 0,
        min, max, ZoneOffset.UTC, List.of())), """
        {"d": {"date_histogram": {"field": "ts", "calendar_interval": "day",
          "extended_bounds": {"min": "2024-03-20T10:00:00Z", "max": %d}}}}""".formatted(max));
    check(wrap("w", dateHistogram(DOCS, local(z -> z.truncatedTo(ChronoUnit.DAYS)
        .minusDays(z.getDayOfWeek().getValue() - 1), ZoneOffset.UTC), 3_600_000L, 0, null, null, ZoneOffset.UTC,
        List.of())), """
        {"w": {"date_histogram": {"field": "ts", "calendar_interval": "1w"}}}""");
    check(wrap("m", dateHistogram(DOCS, local(z -> z.truncatedTo(ChronoUnit.DAYS).withDayOfMonth(1),
        ZoneOffset.UTC), 3_600_000L, 0, null, null, ZoneOffset.UTC, List.of())), """
        {"m": {"date_histogram": {"field": "ts", "calendar_interval": "month"}}}""");
  }

  @Test
  void dateHistogramInOffsetZone() throws IOException {
    ZoneOffset india = ZoneOffset.of("+05:30");
    check(wrap("h", dateHistogram(DOCS, fixed(3 * 3_600_000L, india), 900_000L, 0, null, null, india, List.of())),
        """
        {"h": {"date_histogram": {"field": "ts", "fixed_interval": "3h", "time_zone": "+05:30"}}}""");
    check(wrap("d", dateHistogram(DOCS, local(z -> z.truncatedTo(ChronoUnit.DAYS), india), 900_000L, 1, null, null,
        india, List.of())), """
        {"d": {"date_histogram": {"field": "ts", "calendar_interval": "1d", "time_zone": "+05:30",
          "min_doc_count": 1}}}""");
  }

  @Test
  void dateHistogramAcrossDaylightSaving() throws IOException {
    LongUnaryOperator day = local(z -> z.toLocalDate().atStartOfDay(BERLIN), BERLIN);
    ObjectNode days = dateHistogram(DOCS, day, 900_000L, 0, null, null, BERLIN, List.of());
    check(wrap("d", days), """
        {"d": {"date_histogram": {"field": "ts", "calendar_interval": "day", "time_zone": "Europe/Berlin"}}}""");
    // the day of the change lasts 23 hours
    long march31 = Instant.parse("2024-03-30T23:00:00Z").toEpochMilli();
    long april1 = Instant.parse("2024-03-31T22:00:00Z").toEpochMilli();
    List<Long> keys = new ArrayList<>();
    days.get("buckets").forEach(b -> keys.add(b.get("key").asLong()));
    assertTrue(keys.contains(march31) && keys.get(keys.indexOf(march31) + 1) == april1, keys::toString);
    // a fixed day in the zone: local midnights too
    check(wrap("d", days), """
        {"d": {"date_histogram": {"field": "ts", "fixed_interval": "1d", "time_zone": "Europe/Berlin"}}}""");
    check(wrap("h", dateHistogram(DOCS, local(z -> z.truncatedTo(ChronoUnit.HOURS), BERLIN), 900_000L, 0, null,
        null, BERLIN, List.of())), """
        {"h": {"date_histogram": {"field": "ts", "calendar_interval": "hour", "time_zone": "Europe/Berlin"}}}""");
    LongUnaryOperator threeHours = t -> {
      ZonedDateTime z = Instant.ofEpochMilli(t).atZone(BERLIN);
      LocalDateTime l = z.toLocalDateTime().truncatedTo(ChronoUnit.HOURS).withHour(z.getHour() / 3 * 3);
      return ZonedDateTime.ofLocal(l, BERLIN, z.getOffset()).toInstant().toEpochMilli();
    };
    check(wrap("h", dateHistogram(DOCS, threeHours, 900_000L, 0, null, null, BERLIN, List.of())), """
        {"h": {"date_histogram": {"field": "ts", "fixed_interval": "3h", "time_zone": "Europe/Berlin"}}}""");
  }

  @Test
  void dateHistogramOrderAndSubAggregations() throws IOException {
    List<Sub> subs = List.of(new Sub("avg_n", ds -> metric("avg", nValues(ds))),
        new Sub("st", ds -> terms(ds, d -> d.status() == null ? List.of() : List.of(d.status()), 2, BY_COUNT,
            List.of())));
    ObjectNode expected = dateHistogram(DOCS, fixed(86_400_000L, ZoneOffset.UTC), 3_600_000L, 0, null, null,
        ZoneOffset.UTC, subs);
    List<JsonNode> buckets = new ArrayList<>();
    expected.get("buckets").forEach(buckets::add);
    buckets.sort(Comparator.<JsonNode>comparingLong(b -> -b.get("doc_count").asLong())
        .thenComparingLong(b -> b.get("key").asLong()));
    ((ArrayNode) expected.get("buckets")).removeAll().addAll(buckets);
    check(wrap("d", expected), """
        {"d": {"date_histogram": {"field": "ts", "fixed_interval": "1d", "order": {"_count": "desc"}},
          "aggs": {"avg_n": {"avg": {"field": "n"}}, "st": {"terms": {"field": "status", "size": 2}}}}}""");
  }

  @Test
  void dateHistogramUnderTermsWithOffset() throws IOException {
    long sixHours = 6 * 3_600_000L;
    LongUnaryOperator shifted = t -> Math.floorDiv(t - sixHours, 86_400_000L) * 86_400_000L + sixHours;
    List<Sub> subs = List.of(new Sub("d", ds -> dateHistogram(ds, shifted, 3_600_000L, 1, null, null,
        ZoneOffset.UTC, List.of())));
    check(wrap("t", terms(DOCS, d -> d.status() == null ? List.of() : List.of(d.status()), 10, BY_COUNT, subs)), """
        {"t": {"terms": {"field": "status"}, "aggs": {"d": {"date_histogram": {"field": "ts",
          "fixed_interval": "1d", "offset": "+6h", "min_doc_count": 1}}}}}""");
  }

  /**
   * With an offset, the extended bounds move by it before they round, as a 9.3.3 node answers (issue 54): calendar
   * days, offset +6h, bounds from 2024-02-27 start at 2024-02-27T06:00, not the 26th.
   */
  @Test
  void dateHistogramBoundsMoveWithTheOffset() throws IOException {
    long day = 86_400_000L;
    for (long offset : new long[] {6 * 3_600_000L, -6 * 3_600_000L}) {
      LongUnaryOperator shifted = t -> Math.floorDiv(t - offset, day) * day + offset;
      long min = Instant.parse("2024-02-27T00:00:00Z").toEpochMilli();
      long max = Instant.parse("2024-04-20T00:00:00Z").toEpochMilli();
      check(wrap("d", dateHistogram(DOCS, shifted, 3_600_000L, 0, min + offset, max + offset, ZoneOffset.UTC,
          List.of())), """
          {"d": {"date_histogram": {"field": "ts", "calendar_interval": "day", "offset": "%s",
            "extended_bounds": {"min": "2024-02-27", "max": "2024-04-20"}}}}""".formatted(offset > 0 ? "+6h" : "-6h"));
    }
  }

  /**
   * A filter that matches nothing still has its sub-aggregations, as the node answers (issue 54): terms with
   * {@code min_doc_count: 0} list every term at 0.
   */
  @Test
  void anEmptyFiltersSubAggregationsAnswerAsTheNodes() throws IOException {
    ObjectNode r = run("""
        {"f": {"filter": {"term": {"tag": "no-such-tag"}}, "aggs": {"t": {"terms": {"field": "tag", "min_doc_count": 0}}}},
         "fs": {"filters": {"filters": [{"term": {"tag": "no-such-tag"}}]},
                "aggs": {"t": {"terms": {"field": "tag", "min_doc_count": 0}}}}}""", false);
    assertEquals(0, r.at("/f/doc_count").asInt(), r.toString());
    assertTrue(r.at("/f/t/buckets").size() > 1, r.toString());
    r.at("/f/t/buckets").forEach(b -> assertEquals(0, b.get("doc_count").asInt(), r.toString()));
    assertEquals(r.at("/f/t/buckets"), r.at("/fs/buckets/0/t/buckets"), r.toString());
  }

  /**
   * With {@code min_doc_count: 0}, a terms aggregation's {@code missing} value is a bucket even where no document
   * lacks the field, 0 then, as the node lists it (issue 54).
   */
  @Test
  void theMissingValueIsATermOfEveryTermsList() throws IOException {
    ObjectNode r = run("""
        {"t": {"terms": {"field": "tag", "min_doc_count": 0, "missing": "zz-none", "size": 100, "order": {"_key": "desc"}}},
         "f": {"filter": {"term": {"tag": "no-such-tag"}},
               "aggs": {"t": {"terms": {"field": "tag", "min_doc_count": 0, "missing": "zz-none", "size": 100}}}}}""",
        false);
    JsonNode top = r.at("/t/buckets/0");
    assertEquals("zz-none", top.get("key").asText(), r.toString());
    boolean listed = false;
    for (JsonNode b : r.at("/f/t/buckets")) {
      listed |= b.get("key").asText().equals("zz-none") && b.get("doc_count").asInt() == 0;
    }
    assertTrue(listed, r.toString());
  }

  @Test
  void histogram() throws IOException {
    TreeMap<Long, List<Doc>> byIndex = new TreeMap<>();
    for (Doc d : DOCS) {
      TreeSet<Long> indices = new TreeSet<>();
      for (long n : d.ns()) {
        indices.add(Math.floorDiv(n - 5, 25));
      }
      for (long i : indices) {
        byIndex.computeIfAbsent(i, k -> new ArrayList<>()).add(d);
      }
    }
    for (long i = -10; i <= 20; i++) {
      byIndex.computeIfAbsent(i, k -> new ArrayList<>());
    }
    ArrayNode buckets = M.createArrayNode();
    byIndex.forEach((i, ds) -> {
      ObjectNode b = bucket(ds, List.of(new Sub("p", x -> metric("max", prices(x)))));
      b.put("key", i * 25.0 + 5);
      buckets.add(b);
    });
    ObjectNode o = obj();
    o.set("buckets", buckets);
    check(wrap("h", o), """
        {"h": {"histogram": {"field": "n", "interval": 25, "offset": 5,
          "extended_bounds": {"min": -245, "max": 520}}, "aggs": {"p": {"max": {"field": "price"}}}}}""");
  }

  @Test
  void termsOnKeywords() throws IOException {
    check(wrap("t", terms(DOCS, Doc::tags, 5, BY_COUNT, List.of())), """
        {"t": {"terms": {"field": "tag", "size": 5, "shard_size": 100}}}""");
    check(wrap("t", terms(DOCS, Doc::tags, 3, BY_KEY.reversed(), List.of())), """
        {"t": {"terms": {"field": "tag", "size": 3, "order": {"_key": "desc"}}}}""");
    check(wrap("t", terms(DOCS, d -> d.status() == null ? List.of("none") : List.of(d.status()), 10, BY_COUNT,
        List.of())), """
        {"t": {"terms": {"field": "status", "missing": "none"}}}""");
    // nested: terms under terms, and a metric
    List<Sub> subs = List.of(new Sub("tags", ds -> terms(ds, Doc::tags, 3, BY_COUNT, List.of())),
        new Sub("s", ds -> metric("sum", prices(ds))));
    check(wrap("t", terms(DOCS, d -> d.status() == null ? List.of() : List.of(d.status()), 10, BY_KEY, subs)), """
        {"t": {"terms": {"field": "status", "order": [{"_key": "asc"}]},
          "aggs": {"tags": {"terms": {"field": "tag", "size": 3}}, "s": {"sum": {"field": "price"}}}}}""");
  }

  /**
   * {@code min_doc_count: 0}: every term of the index has a bucket, 0 where no matching document has it (a 9.3.3 node
   * takes them from each segment's terms dictionary, or every document's values for a number), at the top (where
   * the query matches few documents) and under a bucket, with sub-aggregations over no documents.
   */
  @Test
  void termsWithMinDocCountZeroHaveEveryTermOfTheIndex() throws IOException {
    List<Doc> status404 = DOCS.stream().filter(d -> "404".equals(d.status())).toList();
    Function<Doc, Collection<?>> ns = d -> longs(d.ns());
    List<Sub> sum = List.of(new Sub("s", ds -> metric("sum", prices(ds))));
    ObjectNode expected = obj();
    ObjectNode f = obj();
    f.put("doc_count", status404.size());
    f.set("tags", terms(status404, Doc::tags, 100, BY_COUNT, List.of(), true));
    f.set("ns", terms(status404, ns, 400, BY_KEY, List.of(), true));
    expected.set("f", f);
    check(expected, """
        {"f": {"filter": {"term": {"status": "404"}}, "aggs": {
          "tags": {"terms": {"field": "tag", "size": 100, "min_doc_count": 0}},
          "ns": {"terms": {"field": "n", "size": 400, "min_doc_count": 0, "order": {"_key": "asc"}}}}}}""");
    // at the top, over the documents of one status: the counting path
    Aggregations a = Aggregations.parse(M.readTree("""
        {"tags": {"terms": {"field": "tag", "size": 6, "min_doc_count": 0}},
         "ns": {"terms": {"field": "n", "size": 20, "min_doc_count": 0}},
         "tsum": {"terms": {"field": "tag", "size": 100, "min_doc_count": 0, "order": {"_key": "asc"}},
           "aggs": {"s": {"sum": {"field": "price"}}}},
         "nsum": {"terms": {"field": "n", "size": 400, "min_doc_count": 0, "order": {"_key": "desc"}},
           "aggs": {"s": {"sum": {"field": "price"}}}}}"""), mapping, AggregationsTest::query);
    ObjectNode actual = searcher.search(new TermQuery(new Term("status", "404")), a.collectorManager()).toJson(false);
    ObjectNode top = obj();
    top.set("tags", terms(status404, Doc::tags, 6, BY_COUNT, List.of(), true));
    top.set("ns", terms(status404, ns, 20, BY_COUNT, List.of(), true));
    top.set("tsum", terms(status404, Doc::tags, 100, BY_KEY, sum, true));
    top.set("nsum", terms(status404, ns, 400, BY_KEY.reversed(), sum, true));
    assertEquals(M.readTree(top.toString()), M.readTree(actual.toString()));
    DslException negative = assertThrows(DslException.class, () -> run("""
        {"t": {"terms": {"field": "tag", "min_doc_count": -1}}}""", false));
    assertTrue(negative.getMessage().contains("greater than or equal to 0"), negative::getMessage);
  }

  @Test
  void termsOnNumbersAndOrderByMetric() throws IOException {
    check(wrap("t", terms(DOCS, d -> longs(d.ns()), 7, BY_COUNT, List.of())), """
        {"t": {"terms": {"field": "n", "size": 7}}}""");
    check(wrap("t", terms(DOCS, d -> d.price() == null ? List.of() : List.of(d.price()), 4, BY_COUNT, List.of())),
        """
        {"t": {"terms": {"field": "price", "size": 4}}}""");
    Function<List<Doc>, Double> avgPrice = ds -> {
      List<Double> p = prices(ds);
      return p.isEmpty() ? Double.NaN : p.stream().mapToDouble(x -> x).sum() / p.size();
    };
    Comparator<Map.Entry<Object, List<Doc>>> byAvg =
        Comparator.<Map.Entry<Object, List<Doc>>>comparingDouble(e -> avgPrice.apply(e.getValue())).reversed()
            .thenComparing(BY_KEY);
    check(wrap("t", terms(DOCS, Doc::tags, 4, byAvg, List.of(new Sub("ap", ds -> metric("avg", prices(ds)))))),
        """
        {"t": {"terms": {"field": "tag", "size": 4, "order": {"ap": "desc"}},
          "aggs": {"ap": {"avg": {"field": "price"}}}}}""");
  }

  @Test
  void ranges() throws IOException {
    double[][] ranges = {{Double.NEGATIVE_INFINITY, 0}, {0, 100}, {50, 150}, {100, Double.POSITIVE_INFINITY}};
    ArrayNode buckets = M.createArrayNode();
    for (double[] r : ranges) {
      List<Doc> in = new ArrayList<>();
      for (Doc d : DOCS) {
        for (long n : d.ns()) {
          if (n >= r[0] && n < r[1]) {
            in.add(d);
            break;
          }
        }
      }
      ObjectNode b = bucket(in, List.of(new Sub("c", ds -> metric("value_count", prices(ds)))));
      String from = r[0] == Double.NEGATIVE_INFINITY ? "*" : Double.toString(r[0]);
      String to = r[1] == Double.POSITIVE_INFINITY ? "*" : Double.toString(r[1]);
      b.put("key", r[1] == 150 ? "mid" : from + "-" + to);
      if (r[0] != Double.NEGATIVE_INFINITY) {
        b.put("from", r[0]);
      }
      if (r[1] != Double.POSITIVE_INFINITY) {
        b.put("to", r[1]);
      }
      buckets.add(b);
    }
    ObjectNode o = obj();
    o.set("buckets", buckets);
    check(wrap("r", o), """
        {"r": {"range": {"field": "n", "ranges": [{"from": 100}, {"to": 0}, {"from": 0, "to": 100},
          {"key": "mid", "from": 50, "to": 150}]}, "aggs": {"c": {"value_count": {"field": "price"}}}}}""");
  }

  @Test
  void dateRange() throws IOException {
    long a = Instant.parse("2024-03-28T00:00:00Z").toEpochMilli();
    long b = Instant.parse("2024-04-01T12:00:00Z").toEpochMilli();
    ObjectNode expected = obj();
    ArrayNode buckets = expected.putArray("buckets");
    long[][] ranges = {{Long.MIN_VALUE, a}, {a, b}};
    for (long[] r : ranges) {
      ObjectNode bucket = obj();
      long count = DOCS.stream().filter(d -> d.ts() != null && d.ts() >= r[0] && d.ts() < r[1]).count();
      String from = r[0] == Long.MIN_VALUE ? "*" : ISO.format(Instant.ofEpochMilli(r[0]).atZone(ZoneOffset.UTC));
      String to = ISO.format(Instant.ofEpochMilli(r[1]).atZone(ZoneOffset.UTC));
      bucket.put("key", from + "-" + to);
      if (r[0] != Long.MIN_VALUE) {
        bucket.put("from", (double) r[0]);
        bucket.put("from_as_string", from);
      }
      bucket.put("to", (double) r[1]);
      bucket.put("to_as_string", to);
      bucket.put("doc_count", count);
      buckets.add(bucket);
    }
    ObjectNode typed = run("""
        {"r": {"range": {"field": "ts", "ranges": [{"to": "2024-03-28"}, {"from": "2024-03-28T00:00:00Z",
          "to": %d}]}}}""".formatted(b), true);
    assertEquals(M.readTree(expected.toString()), M.readTree(typed.get("date_range#r").toString()),
        typed::toPrettyString);
  }

  @Test
  void filterAndFilters() throws IOException {
    Predicate<Doc> is404 = predicate(M.readTree("{\"term\": {\"status\": \"404\"}}"));
    List<Doc> matching = DOCS.stream().filter(is404).toList();
    ObjectNode filter = bucket(matching, List.of(new Sub("t", ds -> terms(ds, Doc::tags, 3, BY_COUNT, List.of()))));
    check(wrap("f", filter), """
        {"f": {"filter": {"term": {"status": "404"}}, "aggs": {"t": {"terms": {"field": "tag", "size": 3}}}}}""");

    Predicate<Doc> low = predicate(M.readTree("{\"range\": {\"n\": {\"gte\": 0, \"lt\": 50}}}"));
    Predicate<Doc> alpha = predicate(M.readTree("{\"term\": {\"tag\": \"alpha\"}}"));
    Sub minN = new Sub("m", ds -> metric("min", nValues(ds)));
    ObjectNode keyed = obj();
    ObjectNode kb = keyed.putObject("buckets");
    kb.set("a_low", bucket(DOCS.stream().filter(low).toList(), List.of(minN)));
    kb.set("b_alpha", bucket(DOCS.stream().filter(alpha).toList(), List.of(minN)));
    kb.set("_other_", bucket(DOCS.stream().filter(low.negate().and(alpha.negate())).toList(), List.of(minN)));
    check(wrap("fs", keyed), """
        {"fs": {"filters": {"other_bucket": true, "filters": {"b_alpha": {"term": {"tag": "alpha"}},
          "a_low": {"range": {"n": {"gte": 0, "lt": 50}}}}}, "aggs": {"m": {"min": {"field": "n"}}}}}""");
    ObjectNode anonymous = obj();
    ArrayNode ab = anonymous.putArray("buckets");
    ab.add(bucket(DOCS.stream().filter(alpha).toList(), List.of()));
    ab.add(bucket(DOCS.stream().filter(is404).toList(), List.of()));
    check(wrap("fs", anonymous), """
        {"fs": {"filters": {"filters": [{"term": {"tag": "alpha"}}, {"term": {"status": "404"}}]}}}""");
  }

  @Test
  void metrics() throws IOException {
    ObjectNode expected = obj();
    for (String type : List.of("min", "max", "avg", "sum", "value_count", "stats")) {
      expected.set(type + "_n", metric(type, nValues(DOCS)));
      expected.set(type + "_p", metric(type, prices(DOCS)));
    }
    ObjectNode tags = obj();
    tags.put("value", DOCS.stream().mapToInt(d -> d.tags().size()).sum());
    expected.set("count_tags", tags);
    long minTs = DOCS.stream().filter(d -> d.ts() != null).mapToLong(Doc::ts).min().orElseThrow();
    ObjectNode minDate = obj();
    minDate.put("value", (double) minTs);
    minDate.put("value_as_string", ISO.format(Instant.ofEpochMilli(minTs).atZone(ZoneOffset.UTC)));
    expected.set("min_ts", minDate);
    ObjectNode none = obj();
    none.putNull("value");
    expected.set("max_none", none);
    StringBuilder request = new StringBuilder("{");
    for (String type : List.of("min", "max", "avg", "sum", "value_count", "stats")) {
      request.append("\"%s_n\": {\"%s\": {\"field\": \"n\"}}, \"%s_p\": {\"%s\": {\"field\": \"price\"}},"
          .formatted(type, type, type, type));
    }
    request.append("""
        "count_tags": {"value_count": {"field": "tag"}}, "min_ts": {"min": {"field": "ts"}},
        "max_none": {"max": {"field": "unmapped"}}}""");
    check(expected, request.toString());
  }

  /**
   * Every metric of a date field prints its value in the field's format, a sum too (as a 9.3.3 node does: the sum of
   * no dates is {@code 1970-01-01T00:00:00.000Z}); a number's with the request's {@code format}.
   */
  @Test
  void metricsOfDatesPrintTheirValueAsAString() throws IOException {
    List<Double> ts = new ArrayList<>();
    DOCS.stream().filter(d -> d.ts() != null).forEach(d -> ts.add((double) d.ts()));
    ObjectNode expected = obj();
    for (String type : List.of("min", "max", "avg", "sum", "stats")) {
      ObjectNode m = metric(type, ts);
      if (type.equals("stats")) {
        for (String stat : List.of("min", "max", "avg", "sum")) {
          m.put(stat + "_as_string", ISO.format(Instant.ofEpochMilli((long) m.get(stat).asDouble())
              .atZone(ZoneOffset.UTC)));
        }
      } else {
        m.put("value_as_string", ISO.format(Instant.ofEpochMilli((long) m.get("value").asDouble())
            .atZone(ZoneOffset.UTC)));
      }
      expected.set(type + "_ts", m);
    }
    ObjectNode empty = obj();
    empty.put("doc_count", 0);
    ObjectNode emptySum = obj();
    emptySum.put("value", 0.0);
    emptySum.put("value_as_string", "1970-01-01T00:00:00.000Z");
    empty.set("s", emptySum);
    ObjectNode emptyMin = obj();
    emptyMin.putNull("value");
    empty.set("m", emptyMin);
    expected.set("none", empty);
    ObjectNode formatted = metric("sum", nValues(DOCS));
    formatted.put("value_as_string", new java.text.DecimalFormat("0.00",
        java.text.DecimalFormatSymbols.getInstance(Locale.ROOT)).format(formatted.get("value").asDouble()));
    expected.set("sum_n", formatted);
    check(expected, """
        {"min_ts": {"min": {"field": "ts"}}, "max_ts": {"max": {"field": "ts"}}, "avg_ts": {"avg": {"field": "ts"}},
         "sum_ts": {"sum": {"field": "ts"}}, "stats_ts": {"stats": {"field": "ts"}},
         "none": {"filter": {"term": {"tag": "no such tag"}}, "aggs": {"s": {"sum": {"field": "ts"}},
           "m": {"min": {"field": "ts"}}}},
         "sum_n": {"sum": {"field": "n", "format": "0.00"}}}""");
  }

  @Test
  void typedKeys() throws IOException {
    ObjectNode typed = run("""
        {"a": {"date_histogram": {"field": "ts", "calendar_interval": "day"},
          "aggs": {"b": {"terms": {"field": "n"}}, "c": {"stats": {"field": "price"}}}},
         "d": {"histogram": {"field": "price", "interval": 100}}, "e": {"terms": {"field": "tag"}},
         "f": {"terms": {"field": "price"}}, "g": {"range": {"field": "n", "ranges": [{"to": 5}]}},
         "h": {"filter": {"match_all": {}}}, "i": {"filters": {"filters": {"x": {"match_all": {}}}}},
         "j": {"value_count": {"field": "ts"}}}""", true);
    List<String> names = new ArrayList<>();
    typed.fieldNames().forEachRemaining(names::add);
    assertEquals(List.of("date_histogram#a", "histogram#d", "sterms#e", "dterms#f", "range#g", "filter#h",
        "filters#i", "value_count#j"), names);
    JsonNode bucket = typed.get("date_histogram#a").get("buckets").get(0);
    assertTrue(bucket.has("lterms#b") && bucket.has("stats#c"), bucket::toString);
  }

  @Test
  void refusals() {
    DslException unknown = assertThrows(DslException.class, () -> run("""
        {"uniq": {"cardinality": {"field": "tag"}}}""", false));
    assertTrue(unknown.getMessage().contains("cardinality") && unknown.getMessage().contains("uniq"),
        unknown::getMessage);
    assertEquals(400, unknown.status());
    DslException deep = assertThrows(DslException.class, () -> run("""
        {"a": {"terms": {"field": "tag"}, "aggs": {"b": {"terms": {"field": "status"},
          "aggs": {"c": {"max": {"field": "n"}}}}}}}""", false));
    assertTrue(deep.getMessage().contains("[b]"), deep::getMessage);
    DslException legacy = assertThrows(DslException.class, () -> run("""
        {"h": {"date_histogram": {"field": "ts", "interval": "1d"}}}""", false));
    assertTrue(legacy.getMessage().contains("fixed_interval"), legacy::getMessage);
    assertThrows(DslException.class, () -> run("""
        {"h": {"date_histogram": {"field": "ts", "fixed_interval": "1d", "keyed": true}}}""", false));
    assertThrows(DslException.class, () -> run("""
        {"h": {"date_histogram": {"field": "ts", "calendar_interval": "2d"}}}""", false));
    assertThrows(DslException.class, () -> run("""
        {"t": {"terms": {"field": "body"}}}""", false));
    assertThrows(DslException.class, () -> run("""
        {"m": {"max": {"field": "n"}, "aggs": {"x": {"min": {"field": "n"}}}}}""", false));
    assertThrows(DslException.class, () -> run("""
        {"t": {"terms": {"field": "tag", "script": "x"}}}""", false));
  }

  private static ObjectNode wrap(String name, ObjectNode body) {
    ObjectNode o = obj();
    o.set(name, body);
    return o;
  }
}
