/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.Lease;
import dev.permafrost.elasticsearch.dsl.DslException;
import dev.permafrost.elasticsearch.dsl.SearchApi;
import dev.permafrost.fixture.EngineFixture;
import dev.permafrost.fixture.Tsdb95Fixture;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.lucene.document.InetAddressPoint;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.DocValuesType;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FilterLeafReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.NumericUtils;
import org.apache.lucene.util.Version;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Mounts the time_series indices a real Elasticsearch 9.5.3 node wrote in {@code ES95TSDB} with synthetic
 * {@code _id}s ({@link Tsdb95Fixture}: {@code ts95-blocks512}, blocks of 512 values in three segments;
 * {@code ts95-blocks128}, blocks of 128 in one force-merged segment; gauges and counters long and double, dimensions
 * of four kinds, sparse and multi-valued fields) and checks them against the node through a cache that holds them
 * whole and one of 1 MiB: every request the node answered (totals, hits' ids, sort values and {@code _source}s under
 * five sorts, aggregations, {@code ids} queries) answered the same by {@link SearchApi}, every live document's doc
 * values the generator's, and a damaged byte in an {@code ES95TSDB} file caught naming it.
 */
class Tsdb95SnapshotsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir static Path tmp;
  static JsonNode answers;
  static EngineSnapshotRepository repository;
  static final Map<String, SharedRegionCache> CACHES = new TreeMap<>();
  static final Map<String, Catalog> CATALOGS = new TreeMap<>();
  static final Map<String, SearchApi> APIS = new TreeMap<>();

  @BeforeAll
  static void readAnswers() throws Exception {
    // a Lucene older than 9.5.3's (the floor, 10.3) cannot open what it wrote: refusing that is a test of its own
    Assumptions.assumeTrue(Version.LATEST.onOrAfter(Version.parse(EngineFixture.ELASTICSEARCH_95.luceneVersion())),
        "the Lucene on the class path, " + Version.LATEST + ", reads Elasticsearch 9.5.3's segments");
    Path fixture = EngineFixture.ELASTICSEARCH_95.ensure();
    answers = JSON.readTree(fixture.resolve("answers.json").toFile()).path("tsdb95");
    assertTrue(answers.path("indices").size() == Tsdb95Fixture.INDICES.size(), "the 9.5.3 node wrote "
        + Tsdb95Fixture.INDICES);
    repository = EngineSnapshotRepository.open(FileSystemBlobStore.open(fixture.resolve("repo"), false));
  }

  /**
   * The catalog of {@code cache} with the indices mounted as {@code <cache>-<index>}, mounted at first use: large, a
   * cache that holds every file; tiny, 8 regions of 32 KiB (256 KiB; the two indices' files are 0.8 MB, which 1 MiB
   * held whole), so that a search's reads evict each other's.
   */
  static synchronized Catalog catalog(String cache) throws IOException {
    Catalog catalog = CATALOGS.get(cache);
    if (catalog == null) {
      SharedRegionCache regions = cache.equals("large")
          ? SharedRegionCache.builder().path(tmp.resolve(cache)).size(256 << 20).regionSize(1 << 20).build()
          : SharedRegionCache.builder().path(tmp.resolve(cache)).size(256 << 10).regionSize(32 << 10).build();
      catalog = Catalog.builder(regions).build();
      Map<String, SearchApi.Index> indices = new LinkedHashMap<>();
      try {
        for (String index : Tsdb95Fixture.INDICES) {
          String name = cache + "-" + index;
          repository.mount(catalog, name, Tsdb95Fixture.SNAPSHOT, index);
          indices.put(index, new SearchApi.Index(index, List.of(name + ".0"), mapping(index)));
        }
      } catch (IOException | RuntimeException e) {
        catalog.close();
        regions.close();
        throw e;
      }
      CACHES.put(cache, regions);
      CATALOGS.put(cache, catalog);
      APIS.put(cache, new SearchApi(catalog, () -> indices));
    }
    return catalog;
  }

  @AfterAll
  static void close() throws Exception {
    for (Catalog c : CATALOGS.values()) {
      c.close();
    }
    for (SharedRegionCache c : CACHES.values()) {
      c.close();
    }
  }

  private static IndexMapping mapping(String index) throws IOException {
    return repository.indexMetadata(Tsdb95Fixture.SNAPSHOT, index).mapping();
  }

  /**
   * The indices are what the fixture meant them to be, as the node says and as the segments mounted say: time_series
   * created by 9.5.3, the block size setting each way, one segment or three (and the deletes' tombstones), the soft
   * deletes, every numeric field's doc values in {@code ES95TSDB}.
   */
  @Test
  void theIndicesAreElasticsearch95TimeSeriesInEs95Tsdb() throws Exception {
    for (String index : Tsdb95Fixture.INDICES) {
      JsonNode node = answers.path("indices").path(index);
      assertEquals("time_series", node.path("settings").path("index.mode").asText(), index);
      assertEquals(String.valueOf(Tsdb95Fixture.largeBlocks(index)),
          node.path("settings").path("index.use_time_series_doc_values_format_large_block_size").asText(), index);
      assertEquals(Tsdb95Fixture.liveDocuments(index), node.path("count").asInt(), index);
      int segments = Tsdb95Fixture.segments(index);
      assertEquals(segments, node.path("segments").size(), index);
      int deleted = 0;
      for (JsonNode segment : node.path("segments")) {
        // a segment of nothing but the deletes' tombstones counts them as its deleted documents
        deleted += segment.path("num_docs").asInt() > 0 ? segment.path("deleted_docs").asInt() : 0;
      }
      assertEquals(Tsdb95Fixture.SERIES * Tsdb95Fixture.POINTS - Tsdb95Fixture.liveDocuments(index), deleted,
          index + ": the soft deletes the segments keep");
      try (Lease lease = catalog("large").acquire("large-" + index + ".0")) {
        int withLiveDocs = 0;
        for (JsonNode segment : node.path("segments")) {
          withLiveDocs += segment.path("num_docs").asInt() > 0 ? 1 : 0;
        }
        // as the node's searcher: the tombstones' segment, all deleted, is no leaf of a soft-deletes reader
        assertEquals(withLiveDocs, lease.reader().leaves().size(), index);
        assertEquals(Tsdb95Fixture.liveDocuments(index), lease.reader().numDocs(), index);
        for (LeafReaderContext leaf : lease.reader().leaves()) {
          for (String field : List.of("gauge_long", "gauge_double", "gauge_wild", "counter_long", "counter_double",
              "@timestamp")) {
            FieldInfo info = leaf.reader().getFieldInfos().fieldInfo(field);
            assertEquals(DocValuesType.SORTED_NUMERIC, info.getDocValuesType(), index + " " + field);
            assertEquals("ES95TSDB", info.getAttribute("PerFieldDocValuesFormat.format"), index + " " + field);
          }
        }
      }
    }
  }

  /**
   * Every request the node answered, sent to {@link SearchApi} over the mounted indices: the same total, hits (ids,
   * sort values, {@code _source}s rebuilt from doc values) and aggregations; a request the node refused refused with
   * its status. Numbers compare by value; the sums and averages of doubles to 1e-12 of their size (both add with
   * compensation, in orders that may differ by segment).
   */
  @ParameterizedTest
  @ValueSource(strings = {"large", "tiny"})
  void everyRequestAnswersAsTheNodeDid(String cache) throws Exception {
    catalog(cache);
    SearchApi api = APIS.get(cache);
    List<String> differences = new ArrayList<>();
    TreeSet<String> refused = new TreeSet<>();
    int refusedByName = 0;
    int requests = 0;
    int compared = 0;
    for (String index : Tsdb95Fixture.INDICES) {
      for (JsonNode request : answers.path("indices").path(index).path("requests")) {
        requests++;
        String what = cache + " " + index + " " + request.path("name").asText();
        int status = request.path("status").asInt();
        JsonNode response;
        try {
          response = api.search(index, request.path("request"), Map.of());
        } catch (DslException e) {
          if (status == 200 && e.status() == 400 && KNOWN_REFUSALS.stream().anyMatch(e.getMessage()::contains)) {
            refused.add(request.path("name").asText() + ": " + e.getMessage());
            refusedByName++;
            continue;
          }
          if (e.status() != status) {
            differences.add(what + ": refused with " + e.status() + " (" + e.getMessage() + "), the node answered "
                + status + (status == 200 ? "" : ": " + request.path("error").asText()));
          }
          compared++;
          continue;
        } catch (RuntimeException e) {
          differences.add(what + ": failed: " + e);
          continue;
        }
        if (status != 200) {
          differences.add(what + ": answered, the node refused it: " + request.path("error").asText());
          continue;
        }
        JsonNode expected = request.path("response");
        diff(what + " total", expected.path("total"), response.path("hits").path("total"), differences);
        JsonNode hits = response.path("hits").path("hits");
        if (hits.size() != expected.path("hits").size()) {
          differences.add(what + ": " + hits.size() + " hits, the node " + expected.path("hits").size());
        } else {
          for (int i = 0; i < hits.size(); i++) {
            for (String key : List.of("_id", "sort", "_source")) {
              if (expected.path("hits").get(i).has(key)) {
                diff(what + " hit " + i + " " + key, expected.path("hits").get(i).get(key), hits.get(i).get(key),
                    differences);
              }
            }
          }
        }
        if (expected.has("aggregations")) {
          diff(what + " aggregations", expected.path("aggregations"), response.path("aggregations"), differences);
        }
        compared++;
      }
    }
    // every difference, for whoever reads the report
    Files.write(Path.of("target", "tsdb95-differences-" + cache + ".txt"), differences);
    assertEquals(List.of(), differences.subList(0, Math.min(30, differences.size())), differences.size()
        + " differences in " + compared + " requests");
    assertEquals(requests, compared + refusedByName, differences.size() + " requests neither answered nor refused");
    assertTrue(compared >= 2 * 130, "requests compared: " + compared + " of " + requests);
    // each known refusal is still a refusal (when the DSL learns it, the request is compared and the list shrinks)
    for (String known : KNOWN_REFUSALS) {
      assertTrue(refused.stream().anyMatch(r -> r.contains(known)), "no longer refused: " + known);
    }
    System.out.printf("Tsdb95SnapshotsTest %s: %d of %d requests answered as the node did, %d refused by name: %s%n",
        cache, compared, requests, refusedByName, refused);
  }

  /**
   * What the Query DSL refuses by name (a 400, as its contract says of what it does not do) where the 9.5.3 node
   * answers: term queries on {@code ip} and {@code boolean} fields, a {@code terms} aggregation on an {@code ip}
   * field, a sort's {@code mode}. The requests that ask them ask nothing else, so that the rest is compared.
   */
  private static final List<String> KNOWN_REFUSALS = List.of(
      "[term] query on field 'ip' is of type 'ip', which this parser does not query",
      "[term] query on field 'canary' is of type 'boolean', which this parser does not query",
      "Field [ip] of type [ip] is not supported for aggregation [by_ip] of type [terms]",
      "[sort] option [mode] of [gauge_multi] is not supported");

  /** Adds to {@code out} where {@code actual} differs from {@code expected}, numbers compared by value. */
  private static void diff(String path, JsonNode expected, JsonNode actual, List<String> out) {
    if (actual == null || actual.isMissingNode()) {
      out.add(path + ": missing, the node has " + expected);
    } else if (expected.isNumber() && actual.isNumber()) {
      BigDecimal e = expected.decimalValue();
      BigDecimal a = actual.decimalValue();
      boolean sum = path.matches(".*(sum|avg)_[a-z_]+\\.value$");
      if (sum ? Math.abs(e.doubleValue() - a.doubleValue()) > 1e-12 * Math.abs(e.doubleValue()) : e.compareTo(a) != 0) {
        out.add(path + ": " + actual + ", the node " + expected);
      }
    } else if (expected.isObject() && actual.isObject()) {
      TreeSet<String> keys = new TreeSet<>();
      expected.fieldNames().forEachRemaining(keys::add);
      actual.fieldNames().forEachRemaining(keys::add);
      for (String key : keys) {
        if (!actual.has(key)) {
          out.add(path + "." + key + ": missing, the node has " + expected.get(key));
        } else if (!expected.has(key)) {
          out.add(path + "." + key + ": " + actual.get(key) + ", the node has none");
        } else {
          diff(path + "." + key, expected.get(key), actual.get(key), out);
        }
      }
    } else if (expected.isArray() && actual.isArray()) {
      if (expected.size() != actual.size()) {
        out.add(path + ": " + actual + ", the node " + expected);
        return;
      }
      for (int i = 0; i < expected.size(); i++) {
        diff(path + "[" + i + "]", expected.get(i), actual.get(i), out);
      }
    } else if (!expected.equals(actual)) {
      out.add(path + ": " + actual + ", the node " + expected);
    }
  }

  /**
   * Every live document's doc values, field by field, are those of the document the generator makes for its series
   * and point (found from its dimensions and timestamp): every gauge's doubles bit for bit (-0.0, subnormals, the
   * largest, ALP's exceptions and what ALP cannot encode), the counters across their resets, the sparse and
   * multi-valued fields; every series' every point once.
   */
  @ParameterizedTest
  @ValueSource(strings = {"large", "tiny"})
  void everyDocumentsDocValuesAreTheGeneratorsValues(String cache) throws Exception {
    long checked = 0;
    for (String index : Tsdb95Fixture.INDICES) {
      IndexMapping mapping = mapping(index);
      TreeSet<Integer> seen = new TreeSet<>();
      try (Lease lease = catalog(cache).acquire(cache + "-" + index + ".0")) {
        for (LeafReaderContext context : lease.reader().leaves()) {
          LeafReader leaf = context.reader();
          var live = leaf.getLiveDocs();
          for (int doc = 0; doc < leaf.maxDoc(); doc++) {
            if (live != null && !live.get(doc)) {
              continue;
            }
            SortedSetDocValues host = DocValues.getSortedSet(leaf, "host");
            SortedNumericDocValues zone = DocValues.getSortedNumeric(leaf, "zone");
            SortedNumericDocValues timestamp = DocValues.getSortedNumeric(leaf, "@timestamp");
            assertTrue(host.advanceExact(doc) && zone.advanceExact(doc) && timestamp.advanceExact(doc), index);
            int series = Tsdb95Fixture.series(host.lookupOrd(host.nextOrd()).utf8ToString(), zone.nextValue());
            long millis = timestamp.nextValue();
            int point = Math.toIntExact((millis - Tsdb95Fixture.timestamp(0)) / 30_000);
            assertTrue(series >= 0 && point >= 0 && point < Tsdb95Fixture.POINTS
                && millis == Tsdb95Fixture.timestamp(point), index + " doc " + doc + ": series " + series + " at "
                + millis);
            assertTrue(seen.add(series * Tsdb95Fixture.POINTS + point), "series " + series + " point " + point);
            assertTrue(!Tsdb95Fixture.deleted(index, series, point), index + ": series " + series + " point " + point
                + " was deleted");
            JsonNode source = JSON.readTree(Tsdb95Fixture.document(series, point));
            for (IndexMapping.Field f : mapping.fields().values()) {
              FieldInfo info = leaf.getFieldInfos().fieldInfo(f.path());
              if (info == null || info.getDocValuesType() == DocValuesType.NONE) {
                continue;
              }
              assertEquals(expected(source, f), actual(leaf, info, doc, f), cache + " " + index + " doc " + doc
                  + " field " + f.path() + " of series " + series + " point " + point);
              checked++;
            }
          }
        }
      }
      assertEquals(Tsdb95Fixture.liveDocuments(index), seen.size(), "every live document once: " + index);
    }
    assertTrue(checked > 2 * 3600 * 14, "values checked: " + checked);
    SharedRegionCache regions = CACHES.get(cache);
    // 256 KiB for 0.8 MB of files: regions were evicted, or read directly where none could be
    assertTrue(cache.equals("large") || regions.stats().evictions() + regions.stats().total().directReads() > 0,
        "the tiny cache held it all: " + regions.stats());
  }

  /**
   * The {@code _source} the node gives back for a generated document, by the rules its answers show (checked by
   * {@link #theNodesSourcesAreTheGeneratorsDocumentsInItsForm}): {@code @timestamp} with milliseconds; a keyword
   * array's values distinct and sorted, a number array's sorted with their repeats; an array of one value as that
   * value.
   */
  static JsonNode nodeForm(int series, int point) throws IOException {
    var source = (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(Tsdb95Fixture.document(series, point));
    source.put("@timestamp", java.time.format.DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
        .withZone(java.time.ZoneOffset.UTC).format(java.time.Instant.ofEpochMilli(Tsdb95Fixture.timestamp(point))));
    for (String field : list(source.fieldNames())) {
      JsonNode value = source.get(field);
      if (!value.isArray()) {
        continue;
      }
      List<JsonNode> values = new ArrayList<>();
      value.forEach(values::add);
      if (values.get(0).isTextual()) {
        TreeSet<String> distinct = new TreeSet<>();
        values.forEach(v -> distinct.add(v.asText()));
        values = distinct.stream().map(t -> (JsonNode) JSON.getNodeFactory().textNode(t)).toList();
      } else {
        values = values.stream().sorted((a, b) -> a.decimalValue().compareTo(b.decimalValue())).toList();
      }
      source.set(field, values.size() == 1 ? values.get(0) : JSON.getNodeFactory().arrayNode().addAll(values));
    }
    return source;
  }

  private static <T> List<T> list(java.util.Iterator<T> it) {
    List<T> all = new ArrayList<>();
    it.forEachRemaining(all::add);
    return all;
  }

  /** The series and point of a source the node gave back, from its {@code host}, {@code zone} and timestamp. */
  private static int[] seriesAndPoint(JsonNode source) {
    int series = Tsdb95Fixture.series(source.path("host").asText(), source.path("zone").asLong());
    long millis = java.time.Instant.parse(source.path("@timestamp").asText()).toEpochMilli();
    int point = Math.toIntExact((millis - Tsdb95Fixture.timestamp(0)) / 30_000);
    assertTrue(series >= 0 && point >= 0 && point < Tsdb95Fixture.POINTS, source.toString());
    return new int[] {series, point};
  }

  /**
   * Every hit's {@code _source} the node answered with is the generator's document of its series and point, in the
   * node's form ({@link #nodeForm}): the generator is what the node holds, and the form is the node's. Needs no
   * reader: it holds the fixture to the node.
   */
  @Test
  void theNodesSourcesAreTheGeneratorsDocumentsInItsForm() throws Exception {
    List<String> differences = new ArrayList<>();
    int checked = 0;
    for (String index : Tsdb95Fixture.INDICES) {
      for (JsonNode request : answers.path("indices").path(index).path("requests")) {
        for (JsonNode hit : request.path("response").path("hits")) {
          JsonNode source = hit.path("_source");
          int[] sp = seriesAndPoint(source);
          diff(index + " " + request.path("name").asText() + " " + hit.path("_id").asText(), source,
              nodeForm(sp[0], sp[1]), differences);
          checked++;
        }
      }
    }
    assertEquals(List.of(), differences.subList(0, Math.min(30, differences.size())), differences.size()
        + " differences");
    assertTrue(checked > 2 * 1000, "sources checked: " + checked);
  }

  /**
   * Every live document's {@code _source} rebuilt from its doc values is its generated document in the node's form
   * (every value of every field back, nothing left out).
   */
  @ParameterizedTest
  @ValueSource(strings = {"large", "tiny"})
  void everyDocumentsRebuiltSourceIsTheNodes(String cache) throws Exception {
    List<String> differences = new ArrayList<>();
    int checked = 0;
    for (String index : Tsdb95Fixture.INDICES) {
      IndexMapping mapping = mapping(index);
      try (Lease lease = catalog(cache).acquire(cache + "-" + index + ".0")) {
        for (LeafReaderContext context : lease.reader().leaves()) {
          var live = context.reader().getLiveDocs();
          for (int doc = 0; doc < context.reader().maxDoc(); doc++) {
            if (live != null && !live.get(doc)) {
              continue;
            }
            EngineDocuments.RebuiltSource rebuilt = EngineDocuments.sourceFromDocValues(lease.reader(),
                context.docBase + doc, mapping);
            String what = cache + " " + index + " doc " + (context.docBase + doc);
            if (!rebuilt.leftOut().isEmpty()) {
              differences.add(what + ": left out " + rebuilt.leftOut());
            }
            JsonNode source = JSON.readTree(rebuilt.json());
            int[] sp = seriesAndPoint(source);
            assertTrue(!Tsdb95Fixture.deleted(index, sp[0], sp[1]), what + " was deleted");
            diff(what, nodeForm(sp[0], sp[1]), source, differences);
            checked++;
          }
        }
      }
    }
    assertEquals(List.of(), differences.subList(0, Math.min(30, differences.size())), differences.size()
        + " differences");
    assertEquals(Tsdb95Fixture.INDICES.stream().mapToInt(Tsdb95Fixture::liveDocuments).sum(), checked);
  }

  /** A field's values in a generated source, as doc values hold them: sorted; doubles as their sortable longs. */
  private static List<String> expected(JsonNode source, IndexMapping.Field f) throws IOException {
    JsonNode node = source.get(f.path());
    List<JsonNode> values = new ArrayList<>();
    if (node != null && node.isArray()) {
      node.forEach(values::add);
    } else if (node != null && !node.isNull()) {
      values.add(node);
    }
    if (f.type().equals("keyword")) {
      TreeSet<String> terms = new TreeSet<>();
      values.forEach(v -> terms.add(v.asText()));
      return new ArrayList<>(terms);
    }
    if (f.type().equals("ip")) {
      TreeMap<BytesRef, String> addresses = new TreeMap<>();
      for (JsonNode v : values) {
        InetAddress address = InetAddress.getByName(v.asText()); // a literal: nothing is looked up
        addresses.put(new BytesRef(InetAddressPoint.encode(address)), address.getHostAddress());
      }
      return new ArrayList<>(addresses.values());
    }
    List<Long> longs = new ArrayList<>();
    for (JsonNode v : values) {
      longs.add(switch (f.type()) {
        case "date" -> java.time.Instant.parse(v.asText()).toEpochMilli();
        case "double" -> NumericUtils.doubleToSortableLong(Double.parseDouble(v.asText()));
        case "long" -> v.asLong();
        case "boolean" -> v.asBoolean() ? 1L : 0L;
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
   * A byte flipped in the middle of the {@code ES95TSDB} doc values data of each index's shard (inside the compound
   * file's blob, or its own) is caught by {@code checkIntegrity}, naming the file and the blob.
   */
  @Test
  void aDamagedEs95TsdbFileIsCaughtNamingIt() throws Exception {
    Path fixture = EngineFixture.ELASTICSEARCH_95.ensure();
    for (String index : Tsdb95Fixture.INDICES) {
      DamagedFile flipped = DamagedFile.flip(fixture.resolve("repo"), tmp.resolve("damaged-" + index),
          Tsdb95Fixture.SNAPSHOT, index, "_ES95TSDB_0.dvd", 0x10);
      EngineSnapshotRepository damaged = flipped.repository();
      String file = flipped.file();
      String name = "damaged-" + index;
      Catalog catalog = catalog("large");
      damaged.mount(catalog, name, Tsdb95Fixture.SNAPSHOT, index);
      try (Lease lease = catalog.acquire(name + ".0")) {
        Exception e = assertThrows(Exception.class, () -> {
          for (LeafReaderContext leaf : lease.reader().leaves()) {
            LeafReader r = leaf.reader();
            while (r instanceof FilterLeafReader f) {
              r = f.getDelegate();
            }
            r.checkIntegrity();
          }
        }, index);
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
          all.append(t).append('\n');
        }
        String message = all.toString();
        assertTrue(message.contains(flipped.shortBlobName()) && message.contains(file.substring(file.indexOf('_'))),
            message);
      } finally {
        catalog.unmount(name + ".0");
      }
    }
  }
}
