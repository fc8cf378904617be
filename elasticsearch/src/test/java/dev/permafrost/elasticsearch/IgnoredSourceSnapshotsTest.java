/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.Lease;
import dev.permafrost.catalog.SearchRequest;
import dev.permafrost.catalog.SearchResponse;
import dev.permafrost.elasticsearch.dsl.SearchApi;
import dev.permafrost.fixture.EngineFixture;
import dev.permafrost.fixture.IgnoredFixture;
import dev.permafrost.store.SharedRegionCache;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.search.Sort;
import org.apache.lucene.util.Version;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The values a real Elasticsearch 9.5.3 node kept outside their fields ({@link IgnoredFixture}: keywords over
 * {@code ignore_above}, malformed numbers, dates and ips, unmapped fields, objects and arrays under
 * {@code dynamic: false}) come back in every document's rebuilt {@code _source} as the node printed it: same keys in
 * the same order, same arrays and objects, nothing left out; through a cache that holds it all and through one of a
 * few small regions. {@code ignored-logs} is logsdb ({@code ES8193TSDB}); {@code ignored-ts} is time_series
 * ({@code ES95TSDB} doc values, synthetic {@code _id}). A value kept in an encoding not read (the YAML-bodied
 * document's object) is named in the rebuilt source's {@code leftOut} and in the Elasticsearch API's hit.
 */
class IgnoredSourceSnapshotsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir static Path tmp;
  static SharedRegionCache large;
  static SharedRegionCache tiny;
  static JsonNode answers;
  static EngineSnapshotRepository repository;

  @BeforeAll
  static void open() throws Exception {
    // a Lucene older than 9.5.3's (the floor, 10.3) cannot open what it wrote: refusing that is a test of its own
    Assumptions.assumeTrue(Version.LATEST.onOrAfter(Version.parse(EngineFixture.ELASTICSEARCH_95.luceneVersion())),
        "the Lucene on the class path, " + Version.LATEST + ", reads Elasticsearch 9.5.3's segments");
    Path fixture = EngineFixture.ELASTICSEARCH_95.ensure();
    answers = JSON.readTree(fixture.resolve("ignored.json").toFile());
    repository = EngineSnapshotRepository.open(FileSystemBlobStore.open(fixture.resolve("repo"), false));
    large = SharedRegionCache.builder().path(tmp.resolve("large")).size(64 << 20).regionSize(1 << 20).build();
    tiny = SharedRegionCache.builder().path(tmp.resolve("tiny")).size(32 << 10).regionSize(4 << 10)
        .tailRegionSize(4 << 10).build(); // 8 regions for a shard of about 50 KiB
  }

  @AfterAll
  static void close() throws Exception {
    for (SharedRegionCache c : new SharedRegionCache[] {large, tiny}) {
      if (c != null) {
        c.close();
      }
    }
  }

  @Test
  void logsdbSourcesAreTheNodesThroughALargeCache() throws Exception {
    assertEquals(IgnoredFixture.DOCS + 2, compareSources(large, "ignored-logs"));
  }

  @Test
  void logsdbSourcesAreTheNodesThroughATinyCache() throws Exception {
    assertEquals(IgnoredFixture.DOCS + 2, compareSources(tiny, "ignored-logs"));
    assertTrue(tiny.stats().evictions() + tiny.stats().total().directReads() > 0, "the cache held it all: "
        + tiny.stats());
  }

  @Test
  void timeSeriesSourcesAreTheNodes() throws Exception {
    assertEquals(IgnoredFixture.DOCS, compareSources(large, "ignored-ts"));
    assertEquals(IgnoredFixture.DOCS, compareSources(tiny, "ignored-ts"));
  }

  @Test
  void logsdbSearchesFindWhatTheNodeFound() throws Exception {
    assertEquals(answers.path("ignored-logs").path("searches").size(), compareSearches(large, "ignored-logs"));
  }

  @Test
  void timeSeriesSearchesFindWhatTheNodeFound() throws Exception {
    assertEquals(answers.path("ignored-ts").path("searches").size(), compareSearches(large, "ignored-ts"));
  }

  /**
   * Through the Elasticsearch API, a hit whose rebuilt source lacks a value the node kept in an encoding not read
   * (the YAML- and CBOR-bodied documents' objects) says which field under {@code _source_rebuilt.left_out}; the others have
   * no such key and their node's source.
   */
  @Test
  void theSearchApiNamesWhatARebuiltSourceLacks() throws Exception {
    IndexMapping mapping = repository.indexMetadata(IgnoredFixture.SNAPSHOT, "ignored-logs").mapping();
    try (Catalog catalog = Catalog.builder(large).build()) {
      repository.mount(catalog, "api-ignored-logs", IgnoredFixture.SNAPSHOT, "ignored-logs");
      Map<String, SearchApi.Index> indices = Map.of("ignored-logs", new SearchApi.Index("ignored-logs",
          List.of("api-ignored-logs.0"), mapping));
      SearchApi api = new SearchApi(catalog, () -> indices);
      JsonNode r = api.search("ignored-logs", JSON.readTree("{\"query\": {\"range\": {\"seq\": {\"gte\": "
          + (IgnoredFixture.YAML_SEQ - 1) + "}}}, \"sort\": [{\"seq\": \"asc\"}]}"), Map.of());
      JsonNode hits = r.path("hits").path("hits");
      assertEquals(3, hits.size(), r.toString());
      assertEquals(JSON.readTree("{\"left_out\": [\"blob\"]}"), hits.get(2).path("_source_rebuilt"));
      assertEquals(answers.path("ignored-logs").path("sources").get(IgnoredFixture.YAML_SEQ - 1),
          hits.get(0).path("_source"));
      assertTrue(hits.get(0).path("_source_rebuilt").isMissingNode(), hits.get(0).toString());
      assertEquals(JSON.readTree("{\"left_out\": [\"meta\"]}"), hits.get(1).path("_source_rebuilt"));
      assertTrue(hits.get(1).path("_source").path("meta").isMissingNode());
      assertEquals(IgnoredFixture.YAML_SEQ, hits.get(1).path("_source").path("seq").asInt());
    }
  }

  /**
   * Every live document of {@code index} rebuilt through {@code cache}: its source, as text (so keys in the node's
   * order), the node's for its seq. Returns the documents compared.
   */
  private static int compareSources(SharedRegionCache cache, String index) throws Exception {
    JsonNode node = answers.path(index);
    IndexMapping mapping = repository.indexMetadata(IgnoredFixture.SNAPSHOT, index).mapping();
    Set<Integer> seen = new HashSet<>();
    int nested = 0;
    try (Catalog catalog = Catalog.builder(cache).build()) {
      String name = "ignored-" + index + "-" + System.identityHashCode(cache);
      repository.mount(catalog, name, IgnoredFixture.SNAPSHOT, index);
      try (Lease lease = catalog.acquire(name + ".0")) {
        var reader = lease.reader();
        for (LeafReaderContext context : reader.leaves()) {
          var live = context.reader().getLiveDocs();
          for (int doc = 0; doc < context.reader().maxDoc(); doc++) {
            if (live != null && !live.get(doc)) {
              continue;
            }
            var seqs = DocValues.getSortedNumeric(context.reader(), "seq");
            assertTrue(seqs.advanceExact(doc));
            int seq = (int) seqs.nextValue();
            assertTrue(seen.add(seq), index + ": seq " + seq + " twice");
            EngineDocuments.RebuiltSource rebuilt = EngineDocuments.sourceFromDocValues(reader, context.docBase + doc,
                mapping);
            JsonNode expected = node.path("sources").get(seq);
            if (seq >= IgnoredFixture.YAML_SEQ) { // an object kept as YAML or CBOR, not read: named, not dropped
              boolean yaml = seq == IgnoredFixture.YAML_SEQ;
              String field = yaml ? "meta" : "blob";
              assertEquals(List.of(field), rebuilt.leftOut(), index + " seq " + seq);
              List<String> encodings = new ArrayList<>(); // the node kept it as YAML (type byte y) or CBOR (c)
              for (var b : IgnoredValues.read(context.reader(), EngineDocuments.IGNORED_SOURCE, doc)) {
                IgnoredValues.Entry entry = IgnoredValues.entry(b, "an entry");
                if (entry.name().equals(field)) {
                  encodings.add(entry.value().unread());
                }
              }
              assertEquals(List.of(yaml ? "YAML" : "CBOR"), encodings);
              assertEquals(JSON.readTree(yaml ? "{\"a\": 1, \"b\": [\"x\", \"y\"]}" : "{\"a\": 1}"),
                  expected.path(field));
              expected = expected.deepCopy();
              ((ObjectNode) expected).remove(field);
              assertEquals(JSON.writeValueAsString(expected), JSON.writeValueAsString(JSON.readTree(rebuilt.json())));
              continue;
            }
            String what = index + " seq " + seq + " " + IgnoredFixture.document(seq, index.equals("ignored-ts"));
            if (expected.has("events")) { // nested documents, not rebuilt: named, not dropped
              assertEquals(List.of("events"), rebuilt.leftOut(), what);
              expected = expected.deepCopy();
              ((ObjectNode) expected).remove("events");
              nested++;
            } else {
              assertEquals(List.of(), rebuilt.leftOut(), what);
            }
            assertEquals(JSON.writeValueAsString(expected), JSON.writeValueAsString(JSON.readTree(rebuilt.json())),
                what);
          }
        }
      }
    }
    long withEvents = index.equals("ignored-ts") ? 0 : java.util.stream.IntStream.range(0, IgnoredFixture.DOCS)
        .filter(seq -> IgnoredFixture.document(seq, false).contains("\"events\"")).count();
    assertTrue(withEvents > 5 || index.equals("ignored-ts"));
    assertEquals(withEvents, nested, index + ": documents with nested ones");
    return seen.size();
  }

  /** Each search the node answered over {@code index}: its total and the seqs of its hits. */
  private static int compareSearches(SharedRegionCache cache, String index) throws Exception {
    MappedQueryParser parser = new MappedQueryParser(repository.indexMetadata(IgnoredFixture.SNAPSHOT, index)
        .mapping());
    int compared = 0;
    try (Catalog catalog = Catalog.builder(cache).build()) {
      String name = "searched-" + index;
      repository.mount(catalog, name, IgnoredFixture.SNAPSHOT, index);
      for (JsonNode search : answers.path(index).path("searches")) {
        String q = search.path("query_string").asText();
        SearchResponse r = catalog.search(SearchRequest.builder(parser.parse(q)).indices(name + ".*")
            .size(IgnoredFixture.DOCS + 2).sort(new Sort(parser.sortField("seq", false))).exactTotalHits(true).build());
        assertEquals(search.path("total").asLong(), r.totalHits().value(), index + " " + q);
        List<Integer> seqs = new ArrayList<>();
        try (Lease lease = catalog.acquire(name + ".0")) {
          var leaves = lease.reader().leaves();
          for (SearchResponse.Hit hit : r.hits()) {
            var leaf = leaves.get(ReaderUtil.subIndex(hit.doc(), leaves));
            var dv = DocValues.getSortedNumeric(leaf.reader(), "seq");
            assertTrue(dv.advanceExact(hit.doc() - leaf.docBase));
            seqs.add((int) dv.nextValue());
          }
        }
        List<Integer> expected = new ArrayList<>();
        search.path("seqs").forEach(s -> expected.add(s.asInt()));
        assertEquals(expected, seqs, index + " " + q);
        compared++;
      }
    }
    return compared;
  }
}
