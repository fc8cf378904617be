/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.Lease;
import dev.permafrost.elasticsearch.dsl.SearchApi;
import dev.permafrost.fixture.EngineFixture;
import dev.permafrost.store.SharedRegionCache;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.index.DocValuesType;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FilterLeafReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SegmentReader;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.Version;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The synthetic {@code _id}s of 9.5.3's time_series index {@code metrics-ts} (codec
 * {@code ES93TSDBDefaultCompressionLucene103Codec}, postings {@code TSDBSyntheticId}, doc values {@code ES95TSDB}):
 * every id the node returned for a hit is a document's here; every document's id finds exactly that document through
 * a term query and its terms enumerate in order; {@code ids}, {@code term} and {@code terms} queries through the
 * Elasticsearch API answer with exactly the documents named and nothing for ids that are not there.
 */
class SyntheticIdSnapshotTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String INDEX = "metrics-ts";
  @TempDir static Path tmp;
  static SharedRegionCache cache;
  static Catalog catalog;
  static SearchApi api;
  static JsonNode answers;

  @BeforeAll
  static void mount() throws Exception {
    Assumptions.assumeTrue(Version.LATEST.onOrAfter(Version.parse(EngineFixture.ELASTICSEARCH_95.luceneVersion())),
        "Lucene reads 9.5's segments");
    Path fixture = EngineFixture.ELASTICSEARCH_95.ensure();
    answers = JSON.readTree(fixture.resolve("answers.json").toFile()).path("tsdb").path("snap-2").path(INDEX);
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(32 << 20).regionSize(1 << 20).build();
    catalog = Catalog.builder(cache).build();
    EngineSnapshotRepository repository = EngineSnapshotRepository.open(FileSystemBlobStore.open(fixture.resolve("repo"),
        false));
    repository.mount(catalog, INDEX, "snap-2", INDEX);
    IndexMetadata metadata = repository.indexMetadata("snap-2", INDEX);
    List<String> shards = new ArrayList<>();
    for (int shard = 0; shard < metadata.shards(); shard++) {
      shards.add(INDEX + "." + shard);
    }
    Map<String, SearchApi.Index> indices = Map.of(INDEX, new SearchApi.Index(INDEX, shards, metadata.mapping(),
        metadata.settings()));
    api = new SearchApi(catalog, () -> indices);
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

  /** Every id the node returned for a hit of {@code metrics-ts}, in the order first seen. */
  private static Set<String> nodeIds() {
    Set<String> ids = new LinkedHashSet<>();
    for (JsonNode search : answers.path("searches")) {
      search.path("ids").forEach(id -> ids.add(id.asText()));
    }
    assertTrue(ids.size() > 100, "the node answered with " + ids.size() + " ids");
    return ids;
  }

  private static Set<String> hitIds(ObjectNode response) {
    Set<String> ids = new LinkedHashSet<>();
    response.path("hits").path("hits").forEach(h -> ids.add(h.path("_id").asText()));
    return ids;
  }

  private static ObjectNode search(String body) throws Exception {
    return api.search(INDEX, JSON.readTree(body), Map.of());
  }

  private static ObjectNode idsQuery(Iterable<String> ids, int size) throws Exception {
    ObjectNode body = JSON.createObjectNode();
    ArrayNode values = body.putObject("query").putObject("ids").putArray("values");
    ids.forEach(values::add);
    body.put("size", size);
    body.put("track_total_hits", true);
    return api.search(INDEX, body, Map.of());
  }

  /**
   * Every document's {@code _id} on fetch: distinct, found by a term query on {@code _id} as exactly that document,
   * and among them every id the node returned; the terms enumerate in byte order, one per document.
   */
  @Test
  void everyDocumentsIdFindsItAndTheNodesIdsAreAmongThem() throws Exception {
    Set<String> nodeIds = nodeIds();
    try (Lease lease = catalog.acquire(INDEX + ".0")) {
      IndexSearcher searcher = new IndexSearcher(lease.reader());
      searcher.setQueryCache(null);
      StoredFields stored = lease.reader().storedFields();
      Map<String, Integer> docOf = new HashMap<>();
      for (int doc = 0; doc < lease.reader().maxDoc(); doc++) {
        String id = EngineDocuments.id(stored.document(doc, Set.of(EngineDocuments.ID)));
        assertTrue(id != null && docOf.put(id, doc) == null, "document " + doc + ": " + id);
      }
      assertEquals(answers.path("count").asInt(), docOf.size());
      assertTrue(docOf.keySet().containsAll(nodeIds), "ids the node returned are missing");
      for (var e : docOf.entrySet()) {
        TopDocs top = searcher.search(EngineDocuments.idQuery(e.getKey()), 2);
        assertEquals(1, top.totalHits.value(), e.getKey());
        assertEquals((int) e.getValue(), top.scoreDocs[0].doc, e.getKey());
        // the same id with its timestamp one millisecond on: no document
        byte[] b = Base64.getUrlDecoder().decode(e.getKey());
        b[b.length - 5] ^= 1;
        String shifted = Base64.getUrlEncoder().withoutPadding().encodeToString(b);
        assertEquals(0, searcher.count(EngineDocuments.idQuery(shifted)), shifted);
      }
      for (LeafReaderContext leaf : lease.reader().leaves()) {
        LeafReader r = leaf.reader();
        Terms terms = r.terms(EngineDocuments.ID);
        assertEquals(r.maxDoc(), terms.getDocCount());
        TermsEnum te = terms.iterator();
        BytesRef previous = null;
        int n = 0;
        for (BytesRef t = te.next(); t != null; t = te.next()) {
          assertTrue(previous == null || previous.compareTo(t) < 0);
          previous = BytesRef.deepCopyOf(t);
          assertEquals(1, te.docFreq());
          n++;
        }
        assertEquals(r.maxDoc(), n);
      }
    }
  }

  /**
   * The node's segment names the codec {@code ES93TSDBDefaultCompressionLucene103Codec}, {@code _id}'s postings
   * {@code TSDBSyntheticId} and its doc values {@code ES94BloomFilterDocValuesFormat} (BINARY, no values read); every
   * file of it, the filter's bits too, passes its checksum.
   */
  @Test
  void theSegmentIsTheSyntheticIdCodecsAndItsFilesCheckOut() throws Exception {
    try (Lease lease = catalog.acquire(INDEX + ".0")) {
      for (LeafReaderContext leaf : lease.reader().leaves()) {
        SegmentReader segment = (SegmentReader) FilterLeafReader.unwrap(leaf.reader());
        assertEquals("ES93TSDBDefaultCompressionLucene103Codec", segment.getSegmentInfo().info.getCodec().getName());
        FieldInfo id = segment.getFieldInfos().fieldInfo(EngineDocuments.ID);
        assertEquals("TSDBSyntheticId", id.getAttribute("PerFieldPostingsFormat.format"));
        assertEquals("ES94BloomFilterDocValuesFormat", id.getAttribute("PerFieldDocValuesFormat.format"));
        assertEquals(DocValuesType.BINARY, id.getDocValuesType());
        assertEquals(DocIdSetIterator.NO_MORE_DOCS, segment.getBinaryDocValues(EngineDocuments.ID).nextDoc());
        segment.checkIntegrity();
      }
    }
  }

  /**
   * {@code ids} queries through the Elasticsearch API: each search's hits by their ids, with ids that are not there
   * beside them (a timestamp or a series byte changed, a number, a string that is not base64), find exactly those
   * hits; all the node's ids at once find them all.
   */
  @Test
  void idsQueriesAnswerWithTheDocumentsNamed() throws Exception {
    int compared = 0;
    for (JsonNode search : answers.path("searches")) {
      Set<String> ids = new LinkedHashSet<>();
      search.path("ids").forEach(id -> ids.add(id.asText()));
      if (ids.isEmpty()) {
        continue;
      }
      List<String> asked = new ArrayList<>(ids);
      byte[] b = Base64.getUrlDecoder().decode(ids.iterator().next());
      byte[] otherTime = b.clone();
      otherTime[b.length - 6] ^= 0x40;
      byte[] otherSeries = b.clone();
      otherSeries[3] ^= 0x01;
      Base64.Encoder base64 = Base64.getUrlEncoder().withoutPadding();
      asked.addAll(List.of(base64.encodeToString(otherTime), base64.encodeToString(otherSeries), "12345",
          "no such id"));
      ObjectNode response = idsQuery(asked, 100);
      String what = search.path("query_id").asText() + " " + search.path("sort_id").asText();
      assertEquals(ids.size(), response.path("hits").path("total").path("value").asInt(), what);
      assertEquals(ids, new LinkedHashSet<>(hitIds(response)) {
        {
          retainAll(ids);
        }
      }, what);
      assertEquals(ids.size(), hitIds(response).size(), what);
      compared++;
    }
    assertTrue(compared > 50, compared + " searches");
    Set<String> all = nodeIds();
    ObjectNode response = idsQuery(all, all.size());
    assertEquals(all.size(), response.path("hits").path("total").path("value").asInt());
    assertEquals(all, hitIds(response));
  }

  /** {@code term} and {@code terms} queries on {@code _id}, and an {@code ids} query in a {@code bool} filter. */
  @Test
  void termAndTermsQueriesOnIdFindTheDocument() throws Exception {
    List<String> ids = new ArrayList<>(nodeIds()).subList(0, 20);
    for (String id : ids) {
      assertEquals(Set.of(id), hitIds(search("{\"query\": {\"term\": {\"_id\": \"" + id + "\"}}}")), id);
      assertEquals(Set.of(id), hitIds(search("{\"query\": {\"bool\": {\"filter\": [{\"ids\": {\"values\": [\"" + id
          + "\"]}}, {\"exists\": {\"field\": \"cpu\"}}]}}}")), id);
    }
    ObjectNode body = JSON.createObjectNode();
    ArrayNode values = body.putObject("query").putObject("terms").putArray("_id");
    ids.forEach(values::add);
    values.add("missing-id");
    body.put("size", 100);
    assertEquals(Set.copyOf(ids), hitIds(api.search(INDEX, body, Map.of())));
    assertEquals(0, search("{\"query\": {\"term\": {\"_id\": \"AAAAAAAAAAAAAAAAAAAAAAAA\"}}}").path("hits")
        .path("total").path("value").asInt());
  }
}
