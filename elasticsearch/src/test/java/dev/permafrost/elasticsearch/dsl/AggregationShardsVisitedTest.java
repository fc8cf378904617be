/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.snapshot.SnapshotOptions;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.SharedRegionCache;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A search with aggregations visits the shards its time range cannot match where an aggregation shows what no
 * document matched, as the node (which runs no pre-filter for a search with aggregations) visits every shard: a
 * {@code terms} aggregation with {@code min_doc_count: 0} lists the terms of a shard whose recorded range lies
 * outside the query's, with a count of 0. Two shards (Permafrost snapshots recording their {@code at} range): one of
 * early documents, {@code n} 1 to 5, one of late ones, {@code n} 100 to 102.
 */
class AggregationShardsVisitedTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long BASE = 1_700_000_000_000L;
  @TempDir Path tmp;
  SharedRegionCache cache;
  Catalog catalog;
  SearchApi api;

  @BeforeEach
  void setUp() throws Exception {
    SnapshotRepository repo = SnapshotRepository.open(FileSystemBlobStore.open(tmp.resolve("repo")));
    snapshot(repo, "early", 1, 5);
    snapshot(repo, "late", 100, 102);
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(16 << 20).regionSize(1 << 20).build();
    catalog = Catalog.builder(cache).build();
    catalog.mount("early", repo, "early");
    catalog.mount("late", repo, "late");
    IndexMapping mapping = IndexMapping.of(JSON.readTree("{\"properties\": {\"n\": {\"type\": \"long\"},"
        + " \"at\": {\"type\": \"date\"}}}"));
    api = new SearchApi(catalog, () -> Map.of("logs", new SearchApi.Index("logs", List.of("early", "late"), mapping)));
  }

  @AfterEach
  void tearDown() throws Exception {
    catalog.close();
    cache.close();
  }

  private static void snapshot(SnapshotRepository repo, String name, long fromN, long toN) throws Exception {
    try (ByteBuffersDirectory d = new ByteBuffersDirectory()) {
      try (IndexWriter w = new IndexWriter(d, new IndexWriterConfig())) {
        for (long n = fromN; n <= toN; n++) {
          Document doc = new Document();
          doc.add(new StoredField("_id", name + n));
          doc.add(new LongPoint("n", n));
          doc.add(new SortedNumericDocValuesField("n", n));
          doc.add(new LongPoint("at", BASE + n));
          doc.add(new SortedNumericDocValuesField("at", BASE + n));
          w.addDocument(doc);
        }
      }
      repo.createSnapshot(name, d, SnapshotOptions.DEFAULTS.withPointFields("at"));
    }
  }

  private List<String> termsBuckets(String minDocCount) throws Exception {
    JsonNode body = JSON.readTree("{\"size\": 0, \"query\": {\"range\": {\"at\": {\"gte\": " + (BASE + 100) + "}}},"
        + " \"aggs\": {\"ns\": {\"terms\": {\"field\": \"n\"" + minDocCount + "}}}}");
    JsonNode answer = api.search("logs", body, Map.of());
    List<String> buckets = new ArrayList<>();
    for (JsonNode b : answer.path("aggregations").path("ns").path("buckets")) {
      buckets.add(b.path("key").asText() + ":" + b.path("doc_count").asLong());
    }
    assertEquals(3, answer.path("hits").path("total").path("value").asLong(), answer.toString());
    return buckets;
  }

  @Test
  void zeroCountTermsComeFromAShardTheRangeCannotMatch() throws Exception {
    // the matched terms by count, then the unmatched ones by key, the early shard's first
    assertEquals(List.of("100:1", "101:1", "102:1", "1:0", "2:0", "3:0", "4:0", "5:0"), termsBuckets(
        ", \"min_doc_count\": 0"));
  }

  @Test
  void withoutZeroCountTermsTheShardIsNotNeeded() throws Exception {
    assertEquals(List.of("100:1", "101:1", "102:1"), termsBuckets(""));
  }
}
