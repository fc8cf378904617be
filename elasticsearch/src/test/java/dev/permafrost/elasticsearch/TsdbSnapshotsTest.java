/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.Lease;
import dev.permafrost.catalog.SearchRequest;
import dev.permafrost.catalog.SearchResponse;
import dev.permafrost.fixture.EngineFixture;
import dev.permafrost.fixture.TsdbFixture;
import dev.permafrost.snapshot.SnapshotException;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.InetAddressPoint;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.DocValuesType;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FilterLeafReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.NumericUtils;
import org.apache.lucene.util.Version;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Mounts the logsdb and time_series indices real Elasticsearch 8.19, 9.1, 9.3 and 9.5 nodes wrote
 * ({@link EngineFixture}: {@code logs-db}, 6,000 documents in three segments at {@code snap-1}, then deletes, updates
 * and 1,000 more at {@code snap-2}; {@code logs-host}, sorted on {@code host.name}; {@code metrics-ts}, 8 series of
 * 500 points), whose doc values are in {@code ES819TSDB} (versions 0 and 2, blocks of 128 and 512) and, from 9.5's
 * logsdb indices, {@code ES8193TSDB} (version 8: skippers in {@code .dvs}, terms-first sorted entries, the text of
 * {@code message} in zstd binary blocks), and checks them against the node: every query's total, top ten ids, sort
 * values and {@code _source} under three sorts, a date histogram and terms counts over doc values, and every
 * document's doc values against the {@code _source} the node stored for it. 9.5's time_series index is in
 * {@code ES95TSDB} (numeric fields in pipelines of stages, ALP doubles) under a synthetic {@code _id}.
 */
class TsdbSnapshotsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir static Path tmp;
  static SharedRegionCache cache;
  static Catalog catalog;
  static final Map<EngineFixture, Mounted> MOUNTED = new EnumMap<>(EngineFixture.class);

  /**
   * A fixture's answers and repository, its logsdb and time_series indices (those its answers list under
   * {@code tsdb}, but the {@code refused} ones) mounted as {@code <prefix>-tsdb-<snapshot>-<index>}.
   */
  record Mounted(String prefix, JsonNode answers, EngineSnapshotRepository repository, Set<String> refused) {
    String name(String snapshot, String index) {
      return prefix + "-tsdb-" + snapshot + "-" + index;
    }
  }

  @BeforeAll
  static void openCache() throws Exception {
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(64 << 20).regionSize(1 << 20).build();
    catalog = Catalog.builder(cache).build();
  }

  @AfterAll
  static void close() throws Exception {
    if (catalog != null) {
      catalog.close();
    }
    if (cache != null) {
      cache.close();
    }
  }

  /**
   * The Elasticsearch nodes that write {@code ES819TSDB} or {@code ES8193TSDB}, where the Lucene on the class path
   * reads their segments.
   */
  static Stream<EngineFixture> engines() {
    return Stream.of(EngineFixture.ELASTICSEARCH_8, EngineFixture.ELASTICSEARCH_9, EngineFixture.ELASTICSEARCH_93,
            EngineFixture.ELASTICSEARCH_95)
        .filter(e -> {
          try {
            return Version.LATEST.onOrAfter(Version.parse(e.luceneVersion()));
          } catch (ParseException x) {
            throw new IllegalStateException(x);
          }
        });
  }

  static synchronized Mounted mounted(EngineFixture engine) throws Exception {
    Mounted m = MOUNTED.get(engine);
    if (m == null) {
      m = mount(catalog, engine.toString(), engine.ensure(), Set.of());
      MOUNTED.put(engine, m);
    }
    assertEquals(4, indices(m).size(), "logs-db at snap-1 and snap-2, metrics-ts and logs-host at snap-2");
    return m;
  }

  /**
   * Mounts in {@code catalog} every index the fixture in {@code fixture} answered for under {@code tsdb}, but the
   * {@code refused} ones.
   */
  static Mounted mount(Catalog catalog, String prefix, Path fixture, Set<String> refused) throws IOException {
    JsonNode answers = JSON.readTree(fixture.resolve("answers.json").toFile());
    EngineSnapshotRepository repository = EngineSnapshotRepository.open(FileSystemBlobStore.open(fixture.resolve("repo"),
        false));
    Mounted m = new Mounted(prefix, answers, repository, refused);
    for (var e : indices(m).entrySet()) {
      repository.mount(catalog, m.name(e.getKey()[0], e.getKey()[1]), e.getKey()[0], e.getKey()[1]);
    }
    return m;
  }

  /** Each (snapshot, index) the node answered for and that is mounted: its answers. */
  static Map<String[], JsonNode> indices(Mounted m) {
    Map<String[], JsonNode> all = new LinkedHashMap<>();
    m.answers().path("tsdb").fields().forEachRemaining(s -> s.getValue().fields().forEachRemaining(i -> {
      if (!m.refused().contains(i.getKey())) {
        all.put(new String[] {s.getKey(), i.getKey()}, i.getValue());
      }
    }));
    return all;
  }

  /**
   * 9.5's time_series index mounts: its doc values in {@code ES95TSDB} (every numeric field of it), its segments in
   * the synthetic-{@code _id} codec; every document there (the other tests compare their values and searches).
   */
  @Test
  void elasticsearch95sTimeSeriesIndexMountsInES95TSDB() throws Exception {
    Assumptions.assumeTrue(engines().anyMatch(e -> e == EngineFixture.ELASTICSEARCH_95), "Lucene reads 9.5's");
    Mounted m = mounted(EngineFixture.ELASTICSEARCH_95);
    try (Lease lease = catalog.acquire(m.name("snap-2", "metrics-ts") + ".0")) {
      assertEquals(TsdbFixture.SERIES * TsdbFixture.POINTS, lease.reader().numDocs());
      for (LeafReaderContext leaf : lease.reader().leaves()) {
        for (String field : List.of("@timestamp", "cpu", "memory", "requests", "host", "pod")) {
          FieldInfo info = leaf.reader().getFieldInfos().fieldInfo(field);
          assertEquals("ES95TSDB", info.getAttribute("PerFieldDocValuesFormat.format"), field);
        }
      }
    }
  }

  /**
   * 9.5.3's logsdb indices ({@code ES8193TSDB}, skippers in their own file, texts in binary blocks past 512 KiB) read
   * through a cache of 32 regions of 32 KiB, so that a search's reads evict each other's: every search and every
   * document's doc values still as the node answered and indexed them.
   */
  @Test
  void elasticsearch95sLogsdbIndicesReadThroughATinyCache() throws Exception {
    Assumptions.assumeTrue(engines().anyMatch(e -> e == EngineFixture.ELASTICSEARCH_95), "Lucene reads 9.5's");
    try (SharedRegionCache tiny = SharedRegionCache.builder().path(tmp.resolve("tiny-95")).size(1 << 20)
            .regionSize(32 << 10).build();
        Catalog tinyCatalog = Catalog.builder(tiny).build()) {
      Mounted m = mount(tinyCatalog, "tiny-95", EngineFixture.ELASTICSEARCH_95.ensure(), Set.of("metrics-ts"));
      assertEquals(3, indices(m).size(), "logs-db at snap-1 and snap-2, logs-host");
      assertTrue(compareSearches(tinyCatalog, m) >= 3 * 165);
      assertTrue(compareDocValues(tinyCatalog, m) > 100_000);
      // 1 MiB for several: regions were evicted, or read directly where none could be
      assertTrue(tiny.stats().evictions() + tiny.stats().total().directReads() > 0, "the cache held it all: "
          + tiny.stats());
    }
  }

  @ParameterizedTest
  @MethodSource("engines")
  void everySearchAnswersAsTheNodeDid(EngineFixture engine) throws Exception {
    assertTrue(compareSearches(catalog, mounted(engine)) >= 500);
  }

  /**
   * Asks {@code catalog} every search the node answered over {@code m}'s indices; each total, top ten ids, sort
   * values and {@code _source} rebuilt from doc values must be the node's. Returns the searches compared.
   */
  static int compareSearches(Catalog catalog, Mounted m) throws Exception {
    String engine = m.prefix();
    int compared = 0;
    for (var e : indices(m).entrySet()) {
      String snapshot = e.getKey()[0];
      String index = e.getKey()[1];
      JsonNode node = e.getValue();
      IndexMapping mapping = m.repository().indexMetadata(snapshot, index).mapping();
      MappedQueryParser parser = new MappedQueryParser(mapping);
      assertEquals(node.path("count").asLong(), catalog.search(SearchRequest.builder(parser.parse("*:*"))
          .indices(m.name(snapshot, index) + ".*").size(1).exactTotalHits(true).build()).totalHits().value());
      for (JsonNode search : node.path("searches")) {
        String what = engine + " " + snapshot + " " + index + " " + search.path("query_id").asText() + " sorted by "
            + search.path("request").path("sort");
        List<SortField> sort = new ArrayList<>();
        for (JsonNode s : search.path("request").path("sort")) {
          var field = s.fields().next();
          sort.add(parser.sortField(field.getKey(), field.getValue().asText().equals("desc")));
        }
        SearchResponse r = catalog.search(SearchRequest.builder(parser.parse(search.path("query_string").asText()))
            .indices(m.name(snapshot, index) + ".*").size(10).sort(new Sort(sort.toArray(SortField[]::new)))
            .exactTotalHits(true).fields(EngineDocuments.ID, EngineDocuments.SOURCE).timeout(Duration.ofMinutes(2))
            .build());
        assertEquals(search.path("total").asLong(), r.totalHits().value(), what);
        List<String> ids = new ArrayList<>();
        List<JsonNode> sortValues = new ArrayList<>();
        List<JsonNode> sources = new ArrayList<>();
        for (SearchResponse.Hit hit : r.hits()) {
          ids.add(EngineDocuments.id(hit.document()));
          sortValues.add(JSON.valueToTree(hit.sortValues()));
          assertEquals(null, EngineDocuments.source(hit.document()), "the nodes keep no _source: it is synthetic");
          try (Lease lease = catalog.acquire(hit.index())) {
            EngineDocuments.RebuiltSource rebuilt = EngineDocuments.sourceFromDocValues(lease.reader(), hit.doc(), mapping);
            assertEquals(List.of(), rebuilt.leftOut(), what);
            sources.add(JSON.readTree(rebuilt.json()));
          }
        }
        List<String> expectedIds = new ArrayList<>();
        search.path("ids").forEach(id -> expectedIds.add(id.asText()));
        assertEquals(expectedIds, ids, what);
        List<JsonNode> expectedSort = new ArrayList<>();
        search.path("sort").forEach(expectedSort::add);
        assertEquals(numbers(expectedSort), numbers(sortValues), what + ": sort values");
        List<JsonNode> expectedSources = new ArrayList<>();
        search.path("sources").forEach(expectedSources::add);
        assertEquals(expectedSources, sources, what + ": _source, rebuilt as the node rebuilt it");
        compared++;
      }
    }
    return compared;
  }

  /** Sort values as numbers compared by value (the node writes 5.0 as 5.0 and longs as integers, as do we). */
  private static List<List<Double>> numbers(List<JsonNode> values) {
    List<List<Double>> all = new ArrayList<>();
    for (JsonNode v : values) {
      List<Double> one = new ArrayList<>();
      v.forEach(n -> one.add(n.asDouble()));
      all.add(one);
    }
    return all;
  }

  /**
   * The node's {@code date_histogram} (fixed interval, {@code min_doc_count} 1) and {@code terms} counts, computed
   * here from the matching documents' doc values.
   */
  @ParameterizedTest
  @MethodSource("engines")
  void aggregationsOverDocValuesCountAsTheNodeDid(EngineFixture engine) throws Exception {
    assertTrue(compareAggregations(catalog, mounted(engine)) >= 40);
  }

  /** Each aggregation the node answered over {@code m}'s indices, counted here; returns the aggregations compared. */
  static int compareAggregations(Catalog catalog, Mounted m) throws Exception {
    String engine = m.prefix();
    int compared = 0;
    for (var e : indices(m).entrySet()) {
      String snapshot = e.getKey()[0];
      String index = e.getKey()[1];
      MappedQueryParser parser = new MappedQueryParser(m.repository().indexMetadata(snapshot, index).mapping());
      try (Lease lease = catalog.acquire(m.name(snapshot, index) + ".0")) {
        IndexSearcher searcher = new IndexSearcher(lease.reader());
        for (JsonNode agg : e.getValue().path("aggregations")) {
          String what = engine + " " + snapshot + " " + index + " " + agg.path("query_id").asText();
          Query query = searcher.rewrite(parser.parse(agg.path("query_string").asText()));
          Weight weight = searcher.createWeight(query, ScoreMode.COMPLETE_NO_SCORES, 1);
          for (var spec : (Iterable<Map.Entry<String, JsonNode>>) () -> agg.path("request").path("aggs").fields()) {
            JsonNode expected = agg.path("aggregations").path(spec.getKey());
            JsonNode body = spec.getValue();
            List<String> actual = new ArrayList<>();
            if (body.has("date_histogram")) {
              String field = body.path("date_histogram").path("field").asText();
              long interval = interval(body.path("date_histogram").path("fixed_interval").asText());
              TreeMap<Long, Long> buckets = new TreeMap<>();
              forEachMatch(lease.reader().leaves(), weight, (leaf, doc) -> {
                SortedNumericDocValues dv = DocValues.getSortedNumeric(leaf, field);
                if (dv.advanceExact(doc)) {
                  buckets.merge(Math.floorDiv(dv.nextValue(), interval) * interval, 1L, Long::sum);
                }
              });
              buckets.forEach((k, n) -> actual.add(k + ":" + n));
            } else {
              String field = body.path("terms").path("field").asText();
              int size = body.path("terms").path("size").asInt(10);
              Map<String, Long> counts = new HashMap<>();
              forEachMatch(lease.reader().leaves(), weight, (leaf, doc) -> {
                SortedSetDocValues dv = DocValues.getSortedSet(leaf, field);
                if (dv.advanceExact(doc)) {
                  for (int i = 0; i < dv.docValueCount(); i++) {
                    counts.merge(dv.lookupOrd(dv.nextOrd()).utf8ToString(), 1L, Long::sum);
                  }
                }
              });
              counts.entrySet().stream()
                  .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                  .limit(size).forEach(c -> actual.add(c.getKey() + ":" + c.getValue()));
            }
            List<String> node = new ArrayList<>();
            expected.forEach(b -> node.add(b.path("key").asText() + ":" + b.path("doc_count").asLong()));
            assertEquals(node, actual, what + " " + spec.getKey());
            assertTrue(!node.isEmpty() || agg.path("total").asLong() == 0, what);
            compared++;
          }
        }
      }
    }
    return compared;
  }

  private static long interval(String fixed) {
    long n = Long.parseLong(fixed.substring(0, fixed.length() - 1));
    return switch (fixed.charAt(fixed.length() - 1)) {
      case 's' -> n * 1000;
      case 'm' -> n * 60_000;
      case 'h' -> n * 3_600_000;
      case 'd' -> n * 86_400_000;
      default -> throw new IllegalArgumentException(fixed);
    };
  }

  interface MatchConsumer {
    void accept(LeafReader leaf, int doc) throws IOException;
  }

  private static void forEachMatch(List<LeafReaderContext> leaves, Weight weight, MatchConsumer consumer)
      throws IOException {
    for (LeafReaderContext leaf : leaves) {
      Scorer scorer = weight.scorer(leaf);
      if (scorer == null) {
        continue;
      }
      var live = leaf.reader().getLiveDocs();
      DocIdSetIterator it = scorer.iterator();
      for (int doc = it.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = it.nextDoc()) {
        if (live == null || live.get(doc)) {
          consumer.accept(leaf.reader(), doc);
        }
      }
    }
  }

  /**
   * Every live document's doc values, field by field, are the values it was indexed with (the fixture's documents,
   * which a real node wrote, deleted and updated between the snapshots): the blocks' every encoding (offsets, GCDs,
   * deltas, bit widths 0 to 64, ordinal runs, cycles and packed ordinals, sparse and multi-valued fields) decoded;
   * where the node keeps a text field's values in binary doc values ({@code message._original} and
   * {@code body._original}, 9.5's logsdb: zstd blocks, bodies of 600 KiB past a block's 512), those texts too.
   */
  @ParameterizedTest
  @MethodSource("engines")
  void everyDocumentsDocValuesAreTheValuesItWasIndexedWith(EngineFixture engine) throws Exception {
    assertTrue(compareDocValues(catalog, mounted(engine)) > 100_000);
  }

  /**
   * Every live document's doc values in {@code m}'s indices, field by field, against the fixture's generator;
   * returns the values checked.
   */
  static long compareDocValues(Catalog catalog, Mounted m) throws Exception {
    String engine = m.prefix();
    long checked = 0;
    long pastABlock = 0;
    for (var e : indices(m).entrySet()) {
      String snapshot = e.getKey()[0];
      String index = e.getKey()[1];
      IndexMapping mapping = m.repository().indexMetadata(snapshot, index).mapping();
      TreeSet<Integer> seen = new TreeSet<>();
      try (Lease lease = catalog.acquire(m.name(snapshot, index) + ".0")) {
        for (LeafReaderContext context : lease.reader().leaves()) {
          LeafReader leaf = context.reader();
          var live = leaf.getLiveDocs();
          var stored = leaf.storedFields();
          // the text fields' values the node keeps in binary doc values (9.5's logsdb): the field's own, one a
          // document (several would be VInt-length-prefixed, the count in "<field>.counts")
          Map<String, BinaryDocValues> originals = new LinkedHashMap<>();
          for (IndexMapping.Field f : mapping.fields().values()) {
            FieldInfo text = leaf.getFieldInfos().fieldInfo(f.path() + "._original");
            if (f.type().equals("text") && text != null && text.getDocValuesType() == DocValuesType.BINARY) {
              originals.put(f.path(), DocValues.getBinary(leaf, text.name));
            }
          }
          for (int doc = 0; doc < leaf.maxDoc(); doc++) {
            if (live != null && !live.get(doc)) {
              continue;
            }
            JsonNode source = JSON.readTree(indexed(snapshot, index, e.getValue(), leaf, doc, stored.document(doc),
                seen));
            for (var original : originals.entrySet()) {
              String what = engine + " " + snapshot + " " + index + " doc " + doc + ": " + original.getKey()
                  + "._original";
              JsonNode text = source.get(original.getKey());
              assertEquals(text != null, original.getValue().advanceExact(doc), what);
              if (text != null) {
                assertEquals(text.asText(), original.getValue().binaryValue().utf8ToString(), what);
                checked++;
                pastABlock += text.asText().length() > 512 * 1024 ? 1 : 0;
              }
            }
            for (IndexMapping.Field f : mapping.fields().values()) {
              FieldInfo info = leaf.getFieldInfos().fieldInfo(f.path());
              if (info == null || info.getDocValuesType() == DocValuesType.NONE) {
                continue;
              }
              String what = engine + " " + snapshot + " " + index + " doc " + doc + " field " + f.path() + " of "
                  + source;
              assertEquals(expected(source, f), actual(leaf, info, doc, f), what);
              checked++;
            }
          }
        }
      }
      assertEquals(e.getValue().path("count").asInt(), seen.size(), "every document once: " + index + " " + snapshot);
    }
    boolean large = indices(m).values().stream().anyMatch(a -> a.path("large_values").asBoolean(false));
    assertTrue(!large || pastABlock > 0, "texts larger than a binary block of 512 KiB checked: " + pastABlock);
    return checked;
  }

  /**
   * The source a live document was indexed with, from the fixture's own functions: {@code logs-db}'s by its
   * {@code _id}'s seq (updated between the snapshots if it was), {@code logs-host}'s too (never changed),
   * {@code logs-up}'s as {@code logs-db}'s (changed after {@code snap-1}); {@code metrics-ts}'s and
   * {@code metrics-up}'s by its series and point (its {@code _id} is the node's own). {@code node}: the index's
   * answers, which say whether the logs have their large bodies.
   */
  private static String indexed(String snapshot, String index, JsonNode node, LeafReader leaf, int doc,
      Document stored, TreeSet<Integer> seen) throws IOException {
    boolean changed = index.equals("logs-db") && snapshot.equals("snap-2")
        || index.endsWith("-up") && !snapshot.equals("snap-1");
    if (index.startsWith("logs-")) {
      String id = EngineDocuments.id(stored);
      int seq = Integer.parseInt(id.substring("ld-".length()));
      assertTrue(seen.add(seq), "one live document per seq: " + id);
      assertTrue(!changed || !TsdbFixture.deleted(index, seq), id + " was deleted");
      return TsdbFixture.logsDocument(seq, changed && TsdbFixture.updated(index, seq) ? 1 : 0,
          node.path("large_values").asBoolean(false));
    }
    SortedSetDocValues host = DocValues.getSortedSet(leaf, "host");
    SortedSetDocValues pod = DocValues.getSortedSet(leaf, "pod");
    SortedNumericDocValues timestamp = DocValues.getSortedNumeric(leaf, "@timestamp");
    assertTrue(host.advanceExact(doc) && pod.advanceExact(doc) && timestamp.advanceExact(doc));
    int series = Arrays.asList(TsdbFixture.METRIC_HOSTS).indexOf(host.lookupOrd(host.nextOrd()).utf8ToString())
        * TsdbFixture.PODS.length + java.util.Arrays.asList(TsdbFixture.PODS).indexOf(pod.lookupOrd(pod.nextOrd())
        .utf8ToString());
    int point = Math.toIntExact((timestamp.nextValue() - TsdbFixture.metricsTimestamp(0)) / 60_000);
    assertTrue(series >= 0 && point >= 0 && point < TsdbFixture.POINTS, "series " + series + " point " + point);
    assertTrue(seen.add(series * TsdbFixture.POINTS + point), "one document per series and point");
    assertTrue(!changed || !TsdbFixture.metricsDeleted(series, point), "series " + series + " point " + point
        + " was deleted");
    return TsdbFixture.metricsDocument(series, point);
  }

  /** A field's values in a {@code _source}, as doc values hold them: sorted, keywords as text, numbers as longs. */
  private static List<String> expected(JsonNode source, IndexMapping.Field f) {
    JsonNode node = source;
    for (String part : f.path().split("\\.")) {
      node = node == null ? null : node.get(part);
    }
    List<JsonNode> values = new ArrayList<>();
    if (node != null && node.isArray()) {
      node.forEach(values::add);
    } else if (node != null && !node.isNull()) {
      values.add(node);
    }
    if (f.type().equals("keyword")) {
      TreeSet<String> terms = new TreeSet<>(); // a sorted set: distinct, in order
      values.forEach(v -> terms.add(v.asText()));
      return new ArrayList<>(terms);
    }
    if (f.type().equals("ip")) { // distinct, in the order of their 16-byte encodings
      TreeMap<BytesRef, String> addresses = new TreeMap<>();
      for (JsonNode v : values) {
        InetAddress address;
        try {
          address = InetAddress.getByName(v.asText()); // a literal: nothing is looked up
        } catch (java.net.UnknownHostException e) {
          throw new IllegalArgumentException(v.asText(), e);
        }
        addresses.put(new BytesRef(InetAddressPoint.encode(address)), address.getHostAddress());
      }
      return new ArrayList<>(addresses.values());
    }
    List<Long> longs = new ArrayList<>();
    for (JsonNode v : values) {
      longs.add(switch (f.type()) {
        case "date" -> v.isNumber() ? v.asLong() : v.asText().contains(" ") // local_time, in its own format
            ? Instant.parse(v.asText().replace(' ', 'T') + "Z").toEpochMilli() : Instant.parse(v.asText()).toEpochMilli();
        case "double" -> NumericUtils.doubleToSortableLong(v.asDouble());
        case "long" -> v.asLong();
        default -> throw new IllegalArgumentException(f.type());
      });
    }
    longs.sort(null);
    return longs.stream().map(String::valueOf).toList();
  }

  private static List<String> actual(LeafReader leaf, FieldInfo info, int doc, IndexMapping.Field f)
      throws IOException {
    List<String> values = new ArrayList<>();
    if (info.getDocValuesType() == DocValuesType.SORTED_SET) {
      SortedSetDocValues dv = DocValues.getSortedSet(leaf, info.name);
      if (dv.advanceExact(doc)) {
        for (int i = 0; i < dv.docValueCount(); i++) {
          BytesRef b = dv.lookupOrd(dv.nextOrd());
          values.add(f.type().equals("ip") ? InetAddressPoint.decode(BytesRef.deepCopyOf(b).bytes).getHostAddress()
              : b.utf8ToString());
        }
      }
    } else {
      SortedNumericDocValues dv = DocValues.getSortedNumeric(leaf, info.name);
      if (dv.advanceExact(doc)) {
        for (int i = 0; i < dv.docValueCount(); i++) {
          values.add(String.valueOf(dv.nextValue()));
        }
      }
    }
    return values;
  }

  /**
   * Every live document's source rebuilt from its doc values (the nodes store none: their {@code _source} is
   * synthetic) is the source it was indexed with, arrays in their order with their repeats, as the node rebuilds it;
   * only the dates are written as the node writes them (milliseconds always) and {@code client_ip} as it prints it.
   */
  @ParameterizedTest
  @MethodSource("engines")
  void aSourceRebuiltFromDocValuesIsTheSourceIndexed(EngineFixture engine) throws Exception {
    assertTrue(compareRebuiltSources(catalog, mounted(engine)) > 15_000);
  }

  /** Every live document's source rebuilt from doc values in {@code m}'s indices; returns the documents checked. */
  static int compareRebuiltSources(Catalog catalog, Mounted m) throws Exception {
    String engine = m.prefix();
    int checked = 0;
    for (var e : indices(m).entrySet()) {
      String snapshot = e.getKey()[0];
      String index = e.getKey()[1];
      IndexMapping mapping = m.repository().indexMetadata(snapshot, index).mapping();
      try (Lease lease = catalog.acquire(m.name(snapshot, index) + ".0")) {
        var reader = lease.reader();
        for (LeafReaderContext context : reader.leaves()) {
          var live = context.reader().getLiveDocs();
          for (int doc = 0; doc < context.reader().maxDoc(); doc++) {
            if (live != null && !live.get(doc)) {
              continue;
            }
            var node = (ObjectNode) JSON.readTree(indexed(snapshot, index, e.getValue(),
                context.reader(), doc, context.reader().storedFields().document(doc), new TreeSet<>()));
            node.put("@timestamp", MILLIS.format(Instant.parse(node.get("@timestamp").asText())));
            if (node.has("client_ip")) { // written out whole, printed as the node prints it
              node.put("client_ip", TsdbFixture.clientIpPrinted(node.get("seq").asInt()));
            }
            EngineDocuments.RebuiltSource rebuilt = EngineDocuments.sourceFromDocValues(reader, context.docBase + doc,
                mapping);
            assertEquals(List.of(), rebuilt.leftOut(), index);
            assertEquals(node, JSON.readTree(rebuilt.json()), engine + " " + snapshot + " " + index + " doc " + doc);
            checked++;
          }
        }
      }
    }
    return checked;
  }

  private static final DateTimeFormatter MILLIS = DateTimeFormatter
      .ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  /**
   * The segments' index sort is the searcher's: {@code logs-db} sorts newest first (Elasticsearch 8.19 to 9.3 leave
   * {@code index.logsdb.sort_on_host_name} false), {@code logs-host} on {@code host.name} then newest first (its
   * {@code host.name} ordinals written as ranges by 9.3); a search sorted as its index is stops early when it need not
   * count every hit, and returns what the exhaustive search returns.
   */
  @ParameterizedTest
  @MethodSource("engines")
  void aSearchSortedAsTheIndexStopsEarly(EngineFixture engine) throws Exception {
    Mounted m = mounted(engine);
    for (String index : List.of("logs-db", "logs-host")) {
      MappedQueryParser parser = new MappedQueryParser(m.repository().indexMetadata("snap-2", index).mapping());
      Sort indexSort = index.equals("logs-db") ? new Sort(parser.sortField("@timestamp", true))
          : new Sort(parser.sortField("host.name", false), parser.sortField("@timestamp", true));
      try (Lease lease = catalog.acquire(m.name("snap-2", index) + ".0")) {
        for (LeafReaderContext leaf : lease.reader().leaves()) {
          assertEquals(indexSort, leaf.reader().getMetaData().sort(), index + ": the segment's sort, as the node wrote it");
        }
      }
      SearchRequest.Builder request = SearchRequest.builder(parser.parse("*:*")).indices(m.name("snap-2", index)
          + ".*").size(10).sort(indexSort).fields(EngineDocuments.ID);
      SearchResponse early = catalog.search(request.exactTotalHits(false).build());
      SearchResponse exact = catalog.search(request.exactTotalHits(true).build());
      assertEquals(TotalHits.Relation.GREATER_THAN_OR_EQUAL_TO, early.totalHits().relation(),
          index);
      assertTrue(early.totalHits().value() < exact.totalHits().value(), early.totalHits() + " of " + exact.totalHits());
      assertEquals(exact.hits().stream().map(h -> EngineDocuments.id(h.document())).toList(),
          early.hits().stream().map(h -> EngineDocuments.id(h.document())).toList(), index);
    }
  }

  /**
   * A byte flipped in the {@code .dvd} of a TSDB-format index (inside its compound file's blob; {@code metrics-ts},
   * whose doc values are in {@code ES95TSDB} on 9.5) is caught, naming the file and the blob: at mount, where opening
   * reads that small file's soft deletes and the mount checks it whole to keep them ({@link KeptOpening}), else by
   * {@code checkIntegrity}; no search is answered from wrong values unnoticed.
   */
  @ParameterizedTest
  @MethodSource("engines")
  void aDamagedDocValuesFileIsCaughtNamingTheFileAndBlob(EngineFixture engine) throws Exception {
    damagedFileIsCaught(engine, "metrics-ts", "TSDB_0.dvd");
  }

  /**
   * From version 5 (Elasticsearch 9.5) the skippers are in a {@code .dvs} of their own: a byte flipped there is
   * caught by {@code checkIntegrity} too.
   */
  @Test
  void aDamagedSkipperFileIsCaughtNamingTheFileAndBlob() throws Exception {
    Assumptions.assumeTrue(engines().anyMatch(e -> e == EngineFixture.ELASTICSEARCH_95), "Lucene reads 9.5's");
    damagedFileIsCaught(EngineFixture.ELASTICSEARCH_95, "logs-host", "ES8193TSDB_0.dvs");
  }

  /**
   * Flips a byte in the middle of the file of {@code index}'s shard whose name ends {@code suffix}, and checks that it
   * is caught, at mount or by {@code checkIntegrity}, naming the file and the blob.
   */
  private static void damagedFileIsCaught(EngineFixture engine, String index, String suffix) throws Exception {
    Path fixture = engine.ensure();
    DamagedFile flipped = DamagedFile.flip(fixture.resolve("repo"), tmp.resolve("damaged-" + engine + "-" + suffix),
        "snap-2", index, suffix, 0x10);
    EngineSnapshotRepository damaged = flipped.repository();
    String file = flipped.file();
    String name = engine + "-damaged-" + suffix;
    Exception atMount = null;
    try {
      damaged.mount(catalog, name, "snap-2", index);
    } catch (SnapshotException.CorruptManifest e) {
      atMount = e; // the byte is in what opening reads of a small file, which the mount checks whole to keep it
    }
    if (atMount != null) {
      assertTrue(catalog.list(name + "*").isEmpty(), "nothing of a refused shard is mounted");
      String message = atMount.getMessage();
      assertTrue(message.contains(flipped.shortBlobName()) && message.contains(file.substring(file.indexOf('_'))), message);
      return;
    }
    try (Lease lease = catalog.acquire(name + ".0")) {
      Exception e = assertThrows(Exception.class, () -> {
        for (LeafReaderContext leaf : lease.reader().leaves()) {
          LeafReader r = leaf.reader();
          while (r instanceof FilterLeafReader f) {
            r = f.getDelegate();
          }
          r.checkIntegrity();
        }
      });
      StringBuilder all = new StringBuilder();
      for (Throwable t = e; t != null; t = t.getCause()) {
        all.append(t).append('\n');
      }
      String message = all.toString();
      assertTrue(message.contains(flipped.shortBlobName()) && message.contains(file.substring(file.indexOf('_'))), message);
    } finally {
      catalog.unmount(name + ".0");
    }
  }
}
