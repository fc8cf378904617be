/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.CountingBlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.Lease;
import dev.permafrost.catalog.SearchRequest;
import dev.permafrost.catalog.SearchResponse;
import dev.permafrost.opensearch.fixture.OpenSearchFixture;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.SnapshotException;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.store.ReadCost;
import dev.permafrost.store.SharedRegionCache;
import dev.permafrost.testutil.Waits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Sort;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mounts the snapshots a real OpenSearch 3.2 node wrote (two indices of two shards; deletes, updates and new
 * documents between the two snapshots; nested objects) and asks every query the node answered: the total hits, the
 * top ten ids, sorted on {@code seq}, and those hits' {@code _source} must be the node's, at each snapshot.
 */
class OpenSearchSnapshotsTest {
  @TempDir static Path tmp;
  static Path fixture;
  static JsonNode answers;
  static CountingBlobStore store;
  static EngineSnapshotRepository repository;
  /** The same snapshots in a repository with compressed metadata and files in parts of 64 KiB. */
  static EngineSnapshotRepository chunked;
  static SharedRegionCache cache;
  static Catalog catalog;

  @BeforeAll
  static void mountBoth() throws Exception {
    fixture = OpenSearchFixture.ensure();
    answers = new ObjectMapper().readTree(fixture.resolve("answers.json").toFile());
    store = new CountingBlobStore(FileSystemBlobStore.open(fixture.resolve("repo"), false));
    repository = EngineSnapshotRepository.open(store);
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(64 << 20).regionSize(1 << 20).build();
    catalog = Catalog.builder(cache).build();
    chunked = EngineSnapshotRepository.open(FileSystemBlobStore.open(fixture.resolve("repo-chunked"), false));
    for (String snapshot : List.of("snap-1", "snap-2")) {
      for (String index : List.of("logs-a", "logs-b")) {
        repository.mount(catalog, snapshot + "-" + index, snapshot, index);
        chunked.mount(catalog, "chunked-" + snapshot + "-" + index, snapshot, index);
      }
    }
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

  @Test
  void readsTheRepositoryAsTheNodeWroteIt() throws Exception {
    assertEquals(List.of("snap-1", "snap-2"), repository.snapshots());
    assertEquals(List.of("logs-a", "logs-b"), repository.indices("snap-2"));
    IndexMetadata meta = repository.indexMetadata("snap-1", "logs-a");
    assertEquals(answers.path("indices").path("logs-a").path("shards").asInt(), meta.shards());
    assertEquals(answers.path("indices").path("logs-a").path("uuid").asText(), meta.settings().get("index.uuid"));
    assertEquals("keyword", meta.mapping().field("host").type());
    assertEquals("keyword", meta.mapping().field("message.raw").type());
    assertEquals("user", meta.mapping().field("user.name").nestedPath());
  }

  @Test
  void everyQueryAnswersAsTheNodeDid() throws Exception {
    JsonNode queries = new ObjectMapper().readTree(fixture.resolve("queries.json").toFile());
    MappedQueryParser parser = new MappedQueryParser(repository.indexMetadata("snap-1", "logs-a").mapping());
    Sort bySeq = new Sort(parser.sortField("seq", true));
    int compared = 0;
    for (String snapshot : List.of("snap-1", "snap-2", "chunked-snap-1", "chunked-snap-2")) {
      for (JsonNode q : queries) {
        List<String> globs = new ArrayList<>();
        for (String index : q.get("indices").asText().split(",")) {
          globs.add(snapshot + "-" + index + ".*");
        }
        SearchResponse response = catalog.search(SearchRequest.builder(parser.parse(q.get("query_string").asText()))
            .indices(globs.toArray(String[]::new)).size(10).sort(bySeq).exactTotalHits(true)
            .fields(EngineDocuments.ID, EngineDocuments.SOURCE).build());
        JsonNode expected = answers.path("snapshots").path(snapshot.replace("chunked-", "")).path(q.get("id").asText());
        String what = snapshot + " " + q;
        assertTrue(expected.has("sources"), "the node recorded its hits' _source: " + what);
        NodeAnswers.assertAnswered(expected, response, what);
        compared++;
      }
    }
    assertTrue(compared >= 80, "compared " + compared);
  }

  @Test
  void readsFilesTheEngineCutIntoPartsAndMetadataItCompressed() throws Exception {
    SnapshotManifest manifest = chunked.parseManifest(EngineSnapshotRepository.shard("snap-2", "logs-a", 0),
        chunked.readManifestBytes(EngineSnapshotRepository.shard("snap-2", "logs-a", 0)));
    long parted = manifest.files().stream().filter(f -> f.blobName() != null && f.length() > 64 << 10).count();
    assertTrue(parted > 0, "a file larger than the 64 KiB chunk size: " + manifest.files());
    assertEquals(repository.indexMetadata("snap-2", "logs-a").mapping().fields(),
        chunked.indexMetadata("snap-2", "logs-a").mapping().fields());
    // a whole parted file, read through the cache, is verified against the checksum the engine recorded
    try (Lease lease = catalog.acquire("chunked-snap-2-logs-a.0")) {
      Directory dir = lease.reader().directory();
      for (FileEntry f : manifest.files()) {
        if (f.blobName() != null && f.length() > 64 << 10) {
          try (IndexInput in = dir.openInput(f.name(), IOContext.READONCE)) {
            assertEquals(f.checksum(), CodecUtil.checksumEntireFile(in), f.name());
          }
        }
      }
    }
  }

  @Test
  void countsTopLevelDocumentsAsTheNodeDoes() throws Exception {
    for (String snapshot : List.of("snap-1", "snap-2")) {
      for (String index : List.of("logs-a", "logs-b")) {
        long expected = answers.path("docs").path(snapshot).path(index).asLong();
        SearchResponse r = catalog.search(SearchRequest.builder(new MatchAllDocsQuery())
            .indices(snapshot + "-" + index + ".*").size(1).exactTotalHits(true).build());
        assertEquals(expected, r.totalHits().value(), snapshot + " " + index);
        long live = 0;
        for (int shard = 0; shard < 2; shard++) {
          try (Lease lease = catalog.acquire(snapshot + "-" + index + "." + shard)) {
            DirectoryReader reader = lease.reader();
            live += reader.numDocs();
            assertEquals(reader.numDocs(), new IndexSearcher(reader).count(new MatchAllDocsQuery()));
          }
        }
        assertEquals(expected, live, "numDocs hides nested and soft-deleted documents: " + snapshot + " " + index);
      }
    }
  }

  @Test
  void findsADocumentByItsId() throws Exception {
    SearchResponse any = catalog.search(SearchRequest.builder(new MatchAllDocsQuery()).indices("snap-2-logs-b.*")
        .size(30).fields(EngineDocuments.ID).build());
    for (SearchResponse.Hit hit : any.hits()) {
      String id = EngineDocuments.id(hit.document());
      SearchResponse one = catalog.search(SearchRequest.builder(EngineDocuments.idQuery(id)).indices("snap-2-logs-b.*")
          .size(2).exactTotalHits(true).fields(EngineDocuments.ID).build());
      assertEquals(1, one.totalHits().value(), id);
      assertEquals(id, EngineDocuments.id(one.hits().get(0).document()));
    }
  }

  /**
   * The shard is opened when it is mounted (its formats are checked then): the mount costs its manifest and the
   * opening's two waves, and the first search's open then makes no request. Waves are counted by dependency
   * ({@link ReadCost#waves()}): the same however fast or busy the machine is.
   */
  @Test
  void aColdShardOpensWithFewRequestsAndWaves() throws Exception {
    Path cacheDir = tmp.resolve("cold-cache");
    try (SharedRegionCache cold = SharedRegionCache.builder().path(cacheDir).size(64 << 20).regionSize(1 << 20).build();
        Catalog coldCatalog = Catalog.builder(cold).build()) {
      CountingBlobStore counted = new CountingBlobStore(FileSystemBlobStore.open(fixture.resolve("repo"), false));
      EngineSnapshotRepository fresh = EngineSnapshotRepository.open(counted);
      String shard = EngineSnapshotRepository.shard("snap-2", "logs-a", 0);
      // the repository's facts about the index (its metadata, its shards' paths), read once per index, not counted
      fresh.parseManifest(shard, fresh.readManifestBytes(shard));
      long before = counted.requests();
      ReadCost cost = new ReadCost();
      try (ReadCost.Scope scope = ReadCost.attach(cost)) {
        coldCatalog.mount("cold", fresh, shard);
      }
      Waits.awaitNoFetch(cold); // a request counts when asked for; the store sees it when it is sent
      long requests = counted.requests() - before;
      System.out.printf("cold open of a shard at mount: %d requests in %d waves (%d by the clock)%n", requests,
          cost.waves(), cost.clockWaves());
      assertEquals(1 + cost.requests(), requests, "the manifest's request, and every request of the open counted in"
          + " its cost");
      assertEquals(2, cost.waves(), "cold open took " + cost.waves() + " waves of " + requests + " requests");
      long afterMount = counted.requests();
      try (Lease lease = coldCatalog.acquire("cold")) {
        assertTrue(lease.reader().maxDoc() > 0);
      }
      Waits.awaitNoFetch(cold);
      assertEquals(afterMount, counted.requests(), "the first open after the mount's reads from the cache");
    }
  }

  @Test
  void damagedOrMissingMetadataFailsNamingTheBlob() throws Exception {
    Path copy = tmp.resolve("damaged");
    try (var paths = Files.walk(fixture.resolve("repo"))) {
      for (Path p : paths.toList()) {
        Path to = copy.resolve(fixture.resolve("repo").relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(to);
        } else {
          Files.copy(p, to);
        }
      }
    }
    Path snap;
    try (var paths = Files.walk(copy)) {
      snap = paths.filter(p -> p.getFileName().toString().startsWith("snap-") && p.toString().contains("indices"))
          .findFirst().orElseThrow();
    }
    byte[] bytes = Files.readAllBytes(snap);
    bytes[bytes.length / 2] ^= 0x10;
    Files.write(snap, bytes);
    BlobStore damagedStore = FileSystemBlobStore.open(copy, false);
    EngineSnapshotRepository damaged = EngineSnapshotRepository.open(damagedStore);
    String name = copy.relativize(snap).toString();
    String[] parts = name.split("/");
    String shard = parts[parts.length - 2];
    int failures = 0;
    for (String snapshot : List.of("snap-1", "snap-2")) {
      for (String ix : List.of("logs-a", "logs-b")) {
        try {
          damaged.parseManifest(EngineSnapshotRepository.shard(snapshot, ix, Integer.parseInt(shard)),
              damaged.readManifestBytes(EngineSnapshotRepository.shard(snapshot, ix, Integer.parseInt(shard))));
        } catch (SnapshotException.CorruptManifest e) {
          assertTrue(e.getMessage().contains(name), e.getMessage());
          failures++;
        }
      }
    }
    assertEquals(1, failures, "exactly the damaged blob fails");
    SnapshotException missing = assertThrows(SnapshotException.NotFound.class,
        () -> repository.readManifestBytes(EngineSnapshotRepository.shard("snap-9", "logs-a", 0)));
    assertTrue(missing.getMessage().contains("snap-9"), missing.getMessage());
    assertNotNull(assertThrows(SnapshotException.NotFound.class, () -> repository.indexMetadata("snap-1", "logs-z")));
  }
}
