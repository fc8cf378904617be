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
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.SharedRegionCache;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link IndicesApi} where something cannot be read, which a node holding the same indices never shows (the
 * differential test compares the healthy answers with a node's): {@code logs} has two shards and the second is not
 * mounted, {@code vectors} was left out as unreadable, {@code ok} is whole (three documents, and one deleted).
 */
class IndicesApiTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path tmp;
  private SharedRegionCache cache;
  private Catalog catalog;
  private IndicesApi api;
  private int okDocs;
  private int okDeleted;

  @BeforeEach
  void setUp() throws Exception {
    SnapshotRepository repo = SnapshotRepository.open(FileSystemBlobStore.open(tmp.resolve("repo")));
    try (ByteBuffersDirectory ok = new ByteBuffersDirectory(); ByteBuffersDirectory logs = new ByteBuffersDirectory()) {
      try (IndexWriter w = new IndexWriter(ok, new IndexWriterConfig())) {
        for (String id : List.of("a", "b", "c", "d")) {
          Document doc = new Document();
          doc.add(new StringField("_id", id, Field.Store.YES));
          w.addDocument(doc);
        }
        w.commit();
        w.deleteDocuments(new Term("_id", "d"));
      }
      try (IndexWriter w = new IndexWriter(logs, new IndexWriterConfig())) {
        w.addDocument(new Document());
      }
      try (DirectoryReader reader = DirectoryReader.open(ok)) { // the oracle of the counts
        okDocs = reader.numDocs();
        okDeleted = reader.numDeletedDocs();
      }
      repo.createSnapshot("ok", ok);
      repo.createSnapshot("logs-0", logs);
    }
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(16 << 20).regionSize(1 << 20).build();
    catalog = Catalog.builder(cache).build();
    catalog.mount("ok", repo, "ok");
    catalog.mount("logs.0", repo, "logs-0");
    IndexMapping mapping = IndexMapping.of(JSON.readTree("{\"properties\": {\"f\": {\"type\": \"keyword\"}}}"));
    Map<String, SearchApi.Index> indices = new LinkedHashMap<>();
    indices.put("ok", new SearchApi.Index("ok", List.of("ok"), mapping, Map.of("index.number_of_shards", "1",
        "index.uuid", "u-ok", "index.routing.allocation.include._tier_preference", "data_content",
        "index.creation_date", "1795943897719")));
    indices.put("logs", new SearchApi.Index("logs", List.of("logs.0", "logs.1"), mapping));
    List<IndicesApi.Unreadable> unreadable = List.of(new IndicesApi.Unreadable("vectors", 3,
        "its dense_vector field is in a format this reader cannot read"));
    api = new IndicesApi(catalog, new SearchApi(catalog, () -> indices), () -> indices, () -> unreadable, "archive");
  }

  @AfterEach
  void tearDown() throws Exception {
    catalog.close();
    cache.close();
  }

  @Test
  void healthIsRedWithEveryReasonWhereSomethingCannotBeRead() {
    Answer all = api.clusterHealth(null, Map.of("level", "indices"));
    assertEquals(200, all.status());
    JsonNode body = all.json();
    assertEquals("archive", body.get("cluster_name").asText());
    assertEquals("red", body.get("status").asText());
    assertEquals(2, body.get("active_primary_shards").asInt(), body.toString()); // ok's and logs' first
    assertEquals(4, body.get("unassigned_primary_shards").asInt(), body.toString()); // logs' second, vectors' 3
    assertEquals(100.0 * 2 / 6, body.get("active_shards_percent_as_number").asDouble(), 1e-9);
    assertEquals("green", body.at("/indices/ok/status").asText());
    assertEquals("red", body.at("/indices/logs/status").asText());
    assertEquals(1, body.at("/indices/logs/unassigned_shards").asInt());
    assertEquals("red", body.at("/indices/vectors/status").asText());
    assertEquals(List.of("index [logs] cannot be read: its shard [logs.1] is not mounted",
        "index [vectors] cannot be read: its dense_vector field is in a format this reader cannot read"),
        all.warnings());
    // one whole index is green; waiting for green where it is red ends at once, timed out
    Answer ok = api.clusterHealth("ok", Map.of());
    assertEquals("green", ok.json().get("status").asText());
    assertTrue(ok.warnings().isEmpty());
    Answer waited = api.clusterHealth(null, Map.of("wait_for_status", "green", "timeout", "30s"));
    assertEquals(408, waited.status());
    assertTrue(waited.json().get("timed_out").asBoolean());
    Answer missing = api.clusterHealth("nosuch", Map.of());
    assertEquals(408, missing.status());
    assertEquals("red", missing.json().get("status").asText());
    assertEquals("green", api.clusterHealth("ok", Map.of("wait_for_status", "yellow")).json().get("status").asText());
  }

  @Test
  void catIndicesShowsTheRedOnesWithTheirCountsEmpty() throws Exception {
    JsonNode rows = api.catIndices(null, Map.of("format", "json", "s", "index", "h", "health,index,pri,docs.count,"
        + "docs.deleted,uuid,creation.date.string")).json();
    assertEquals(JSON.readTree("""
        [{"health":"red","index":"logs","pri":"2","docs.count":null,"docs.deleted":null,"uuid":null,
          "creation.date.string":null},
         {"health":"green","index":"ok","pri":"1","docs.count":"%d","docs.deleted":"%d","uuid":"u-ok",
          "creation.date.string":"2026-11-29T09:18:17.719Z"},
         {"health":"red","index":"vectors","pri":"3","docs.count":null,"docs.deleted":null,"uuid":null,
          "creation.date.string":null}]""".formatted(okDocs, okDeleted)), rows);
    assertEquals(3, okDocs);
    assertEquals("ok\n", api.catIndices(null, Map.of("health", "green", "h", "index")).text());
    assertEquals("logs\nvectors\n", api.catIndices(null, Map.of("health", "red", "h", "index", "s", "index")).text());
    // named indices: the unreadable ones are no index
    assertEquals("ok\n", api.catIndices("o*", Map.of("h", "index")).text());
    DslException unknown = assertThrows(DslException.class, () -> api.catIndices(null, Map.of("foo", "1")));
    assertEquals("request [/_cat/indices] contains unrecognized parameter: [foo]", unknown.getMessage());
  }

  @Test
  void existsGetAndSettingsAsRecorded() throws Exception {
    assertTrue(api.exists("ok", Map.of()));
    assertTrue(api.exists("no-*", Map.of()));
    assertTrue(api.exists("ok,logs", Map.of()));
    assertFalse(api.exists("nosuch", Map.of()));
    assertFalse(api.exists("ok,nosuch", Map.of()));
    JsonNode got = api.get("ok", Map.of());
    assertEquals(JSON.readTree("{\"index\": {\"number_of_shards\": \"1\", \"uuid\": \"u-ok\", \"creation_date\":"
        + " \"1795943897719\", \"routing\": {\"allocation\": {\"include\": {\"_tier_preference\": \"data_content\"}}}}}"),
        got.at("/ok/settings"));
    assertEquals(JSON.readTree("{}"), got.at("/ok/aliases"));
    assertEquals("keyword", got.at("/ok/mappings/properties/f/type").asText());
    assertEquals("u-ok", api.get("ok", Map.of("flat_settings", "true")).at("/ok/settings/index.uuid").asText());
    DslException notFound = assertThrows(DslException.class, () -> api.get("nosuch", Map.of()));
    assertEquals(404, notFound.status());
    assertEquals("nosuch", notFound.metadata().get("resource.id"));
    assertEquals(JSON.readTree("{\"indices\": [{\"name\": \"logs\", \"attributes\": [\"open\"], \"mode\": \"standard\"},"
        + " {\"name\": \"ok\", \"attributes\": [\"open\"], \"mode\": \"standard\"}], \"aliases\": [], \"data_streams\": []}"),
        api.resolveIndex("*", Map.of()));
    assertEquals(JSON.readTree("{\"ok\": {\"aliases\": {}}, \"logs\": {\"aliases\": {}}}"), api.aliases(null, Map.of()));
  }

  @Test
  void catCountCountsAsCountDoes() throws Exception {
    String text = api.catCount("ok", null, Map.of("h", "count")).text();
    assertEquals("3\n", text);
    assertEquals("0", api.catCount("ok", JSON.readTree("{\"query\": {\"term\": {\"f\": \"x\"}}}"),
        Map.of("format", "json")).json().at("/0/count").asText());
  }
}
