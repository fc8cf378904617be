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
import dev.permafrost.elasticsearch.dsl.DslException;
import dev.permafrost.elasticsearch.dsl.SearchApi;
import dev.permafrost.fixture.EngineFixture;
import dev.permafrost.fixture.VectorsFixture;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.SnapshotException;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.store.SharedRegionCache;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import org.apache.lucene.codecs.perfield.PerFieldKnnVectorsFormat;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.Sort;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexOutput;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.Version;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Elasticsearch 9.5's vectors ({@code ES94HnswScalarQuantizedVectorsFormat}, read by Lucene's own readers,
 * {@code codecs.ES94VectorsFormat}) on the {@code vectors} index a real 9.5.3 node wrote ({@link EngineFixture}: 200
 * documents, a {@code dense_vector} of 4 dimensions with the default options, {@link VectorsFixture}): the index
 * mounts; every document's vector, put back into its {@code _source} ({@link EngineDocuments#withVectors}), is the one
 * indexed; every query's total, ids and {@code _source} are the node's, with the vectors left out as the node leaves
 * them out by default and given back as the node gives them back with {@code "_source": {"exclude_vectors": false}}
 * (floats as it prints them), through the library and Elasticsearch's search API ({@code knn} a 400 that says why);
 * the other scalar-quantized options ({@code int4_hnsw}, and {@code int8_flat} and {@code int4_flat} in
 * {@code ES94ScalarQuantizedVectorsFormat}) read too; a damaged byte in the vectors' files is caught naming the file.
 */
class VectorsSnapshotTest {
  static final EngineFixture ENGINE = EngineFixture.ELASTICSEARCH_95;
  static final ObjectMapper JSON = new ObjectMapper();
  @TempDir static Path tmp;
  static SharedRegionCache cache;
  static Catalog catalog;
  static Path fixture;
  static JsonNode answers;
  static EngineSnapshotRepository repository;
  static IndexMapping mapping;

  @BeforeAll
  static void mount() throws Exception {
    Assumptions.assumeTrue(Version.LATEST.onOrAfter(Version.parse(ENGINE.luceneVersion())),
        "Lucene " + Version.LATEST + " does not read what " + ENGINE + " wrote (EngineFixtureSnapshotsTest checks"
            + " the refusal)");
    fixture = ENGINE.ensure();
    answers = JSON.readTree(fixture.resolve("answers.json").toFile()).path("vectors");
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(32 << 20).regionSize(1 << 20).build();
    catalog = Catalog.builder(cache).build();
    repository = EngineSnapshotRepository.open(FileSystemBlobStore.open(fixture.resolve("repo"), false));
    mapping = repository.indexMetadata("snap-2", "vectors").mapping();
    repository.mount(catalog, "vectors", "snap-2", "vectors");
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
  void everyVectorIsTheOneIndexed() throws Exception {
    BitSet seen = new BitSet();
    try (Lease lease = catalog.acquire("vectors.0")) {
      StoredFields stored = lease.reader().storedFields();
      for (LeafReaderContext leaf : lease.reader().leaves()) {
        FieldInfo info = leaf.reader().getFieldInfos().fieldInfo("embedding");
        assertEquals("ES94HnswScalarQuantizedVectorsFormat", info.getAttribute(PerFieldKnnVectorsFormat.PER_FIELD_FORMAT_KEY));
        assertEquals(4, info.getVectorDimension());
        Bits live = leaf.reader().getLiveDocs();
        for (int local = 0; local < leaf.reader().maxDoc(); local++) {
          if (live != null && !live.get(local)) {
            continue;
          }
          int doc = leaf.docBase + local;
          ObjectNode source = (ObjectNode) JSON.readTree(EngineDocuments.source(stored.document(doc)));
          int seq = source.get("seq").asInt();
          assertEquals("v" + seq, EngineDocuments.id(stored.document(doc)));
          assertTrue(!source.has("embedding"), "the node kept the vector out of the stored _source: " + source);
          JsonNode vector = EngineDocuments.withVectors(source, lease.reader(), doc, mapping).get("embedding");
          List<Integer> indexed = VectorsFixture.vector(seq);
          assertEquals(indexed.size(), vector.size(), source.toString());
          for (int i = 0; i < indexed.size(); i++) {
            // a unit vector times its length, in floats: within a few ulps of what was indexed
            float value = vector.get(i).floatValue();
            assertEquals(indexed.get(i), value, 4 * Math.ulp((float) indexed.get(i)), "seq " + seq + ": " + vector);
          }
          assertTrue(!seen.get(seq), "seq " + seq + " twice");
          seen.set(seq);
        }
      }
    }
    assertEquals(200, seen.cardinality());
    assertEquals(200, seen.nextClearBit(0));
  }

  @Test
  void everyQueryAnswersAsTheNodeDidWithAndWithoutVectors() throws Exception {
    MappedQueryParser parser = new MappedQueryParser(mapping);
    Sort bySeq = new Sort(parser.sortField("seq", true));
    int compared = 0;
    for (Map.Entry<String, JsonNode> q : answers.path("searches").properties()) {
      String query = q.getValue().path("default").path("request").at("/query/query_string/query").asText();
      assertEquals(VectorsFixture.QUERIES.get(q.getKey()), query);
      SearchResponse response = catalog.search(SearchRequest.builder(parser.parse(query)).indices("vectors.*")
          .size(10).sort(bySeq).exactTotalHits(true).fields(EngineDocuments.ID, EngineDocuments.SOURCE).build());
      // the node's default: the stored _source, without the vectors
      NodeAnswers.assertAnswered(expected(q.getValue().path("default")), response, q.getKey());
      // with exclude_vectors false: the vectors put back, printed as the node prints them
      JsonNode withVectors = expected(q.getValue().path("with-vectors"));
      List<JsonNode> sources = new ArrayList<>();
      try (Lease lease = catalog.acquire("vectors.0")) {
        for (SearchResponse.Hit hit : response.hits()) {
          ObjectNode source = (ObjectNode) JSON.readTree(EngineDocuments.source(hit.document()));
          // as text and back, as a client reads the node's answer
          sources.add(JSON.readTree(EngineDocuments.withVectors(source, lease.reader(), hit.doc(), mapping).toString()));
        }
      }
      List<JsonNode> expectedSources = new ArrayList<>();
      withVectors.path("sources").forEach(expectedSources::add);
      assertTrue(expectedSources.stream().allMatch(s -> s.has("embedding")), withVectors.toString());
      assertEquals(expectedSources, sources, q.getKey() + " with the vectors");
      compared++;
    }
    assertEquals(VectorsFixture.QUERIES.size(), compared);
  }

  /**
   * The node's other scalar-quantized options ({@code int8_flat}, {@code int4_hnsw}, {@code int4_flat}, in another
   * index of their own snapshot): the index mounts, each field names the format the node wrote, and every document's
   * vectors come back as the node gives them back.
   */
  @Test
  void otherIndexOptionsAreReadAsTheNodeGivesThemBack() throws Exception {
    JsonNode recorded = answers.path(VectorsFixture.OPTIONS_INDEX);
    assertTrue(recorded.path("response").has("hits"), "the node answered: " + recorded);
    IndexMapping options = repository.indexMetadata(VectorsFixture.OPTIONS_SNAPSHOT, VectorsFixture.OPTIONS_INDEX)
        .mapping();
    repository.mount(catalog, "options", VectorsFixture.OPTIONS_SNAPSHOT, VectorsFixture.OPTIONS_INDEX);
    Map<String, String> formats = new java.util.TreeMap<>();
    List<JsonNode> sources = new ArrayList<>();
    try (Lease lease = catalog.acquire("options.0")) {
      for (LeafReaderContext leaf : lease.reader().leaves()) {
        for (String field : VectorsFixture.OPTIONS.keySet()) {
          formats.put(field, leaf.reader().getFieldInfos().fieldInfo(field)
              .getAttribute(PerFieldKnnVectorsFormat.PER_FIELD_FORMAT_KEY));
        }
      }
      MappedQueryParser parser = new MappedQueryParser(options);
      SearchResponse response = catalog.search(SearchRequest.builder(new org.apache.lucene.search.MatchAllDocsQuery())
          .indices("options.*").size(200).sort(new Sort(parser.sortField("seq", false))).exactTotalHits(true)
          .fields(EngineDocuments.ID, EngineDocuments.SOURCE).build());
      for (SearchResponse.Hit hit : response.hits()) {
        ObjectNode source = (ObjectNode) JSON.readTree(EngineDocuments.source(hit.document()));
        sources.add(JSON.readTree(EngineDocuments.withVectors(source, lease.reader(), hit.doc(), options).toString()));
      }
    } finally {
      catalog.unmount("options.0");
    }
    System.out.println("vectors-options formats: " + formats);
    assertEquals(Map.of("flat8", "ES94ScalarQuantizedVectorsFormat", "flat4", "ES94ScalarQuantizedVectorsFormat",
        "hnsw4", "ES94HnswScalarQuantizedVectorsFormat"), formats);
    List<JsonNode> expected = new ArrayList<>();
    recorded.at("/response/hits/hits").forEach(hit -> expected.add(hit.get("_source")));
    assertEquals(200, expected.size());
    assertEquals(expected, sources);
  }

  /**
   * A 384-dimension {@code dense_vector} with the default options (BBQ: {@code ES93HnswBinaryQuantizedVectorsFormat},
   * a format of Elasticsearch's own) is refused at mount, naming the index and the format; nothing of it stays mounted.
   */
  @Test
  void aBbqIndexIsRefusedAtMountNamingItsFormat() throws Exception {
    Exception e = assertThrows(SnapshotException.UnsupportedFormat.class,
        () -> repository.mount(catalog, "bbq", VectorsFixture.OPTIONS_SNAPSHOT, VectorsFixture.BBQ_INDEX));
    System.out.println("vectors-bbq: " + e.getMessage());
    assertTrue(e.getMessage().contains("index '" + VectorsFixture.BBQ_INDEX + "'")
        // what 9.5.3 writes for it (found on its bytes)
        && e.getMessage().contains("KnnVectorsFormat with name 'ES93HnswBinaryQuantizedVectorsFormat'"),
        e.getMessage());
    assertTrue(catalog.list("bbq*").isEmpty(), "nothing of a refused index is mounted");
  }

  /**
   * Elasticsearch's search API asked the node's own requests: the same total, ids and {@code _source}s, with the
   * vectors left out by default and put back with {@code "_source": {"exclude_vectors": false}}; the node's
   * {@code knn} search and a {@code knn} query are a 400 that says why.
   */
  @Test
  void theSearchApiAnswersTheNodesRequestsAsTheNodeDid() throws Exception {
    SearchApi api = new SearchApi(catalog, () -> Map.of("vectors", new SearchApi.Index("vectors", List.of("vectors.0"),
        mapping)));
    int compared = 0;
    for (Map.Entry<String, JsonNode> q : answers.path("searches").properties()) {
      for (String mode : List.of("default", "with-vectors")) {
        JsonNode recorded = q.getValue().path(mode);
        JsonNode ours = JSON.readTree(api.search("vectors", recorded.path("request"), Map.of()).toString());
        JsonNode expected = expected(recorded);
        assertEquals(expected.path("total").asLong(), ours.at("/hits/total/value").asLong(), q.getKey() + " " + mode);
        List<String> ids = new ArrayList<>();
        List<JsonNode> sources = new ArrayList<>();
        for (JsonNode hit : ours.at("/hits/hits")) {
          ids.add(hit.get("_id").asText());
          sources.add(hit.get("_source"));
        }
        List<String> expectedIds = new ArrayList<>();
        expected.path("ids").forEach(id -> expectedIds.add(id.asText()));
        List<JsonNode> expectedSources = new ArrayList<>();
        expected.path("sources").forEach(expectedSources::add);
        assertEquals(expectedIds, ids, q.getKey() + " " + mode);
        assertEquals(expectedSources, sources, q.getKey() + " " + mode);
        compared++;
      }
    }
    assertEquals(2 * VectorsFixture.QUERIES.size(), compared);
    JsonNode knn = answers.path("knn").path("request");
    assertTrue(answers.at("/knn/response/hits/hits").size() == 10, "the node answered the knn search");
    DslException search = assertThrows(DslException.class, () -> api.search("vectors", knn, Map.of()));
    assertEquals(400, search.status());
    assertTrue(search.getMessage().contains("[knn]") && search.getMessage().contains("dense_vector"),
        search.getMessage());
    ObjectNode query = JSON.createObjectNode();
    query.set("query", JSON.createObjectNode().set("knn", knn.get("knn")));
    DslException inQuery = assertThrows(DslException.class, () -> api.search("vectors", query, Map.of()));
    assertEquals(400, inQuery.status());
    assertTrue(inQuery.getMessage().contains("[knn]"), inQuery.getMessage());
  }

  /** The node's total, ids and sources in a response it recorded. */
  static JsonNode expected(JsonNode recorded) {
    JsonNode response = recorded.path("response");
    assertTrue(response.has("hits"), "the node answered: " + recorded);
    ObjectNode expected = JSON.createObjectNode();
    expected.put("total", response.at("/hits/total/value").asLong());
    var ids = expected.putArray("ids");
    var sources = expected.putArray("sources");
    for (JsonNode hit : response.at("/hits/hits")) {
      ids.add(hit.get("_id").asText());
      sources.add(hit.get("_source"));
    }
    return expected;
  }

  /**
   * The shard's compound file is small: the snapshot's recorded checksum of the whole file catches a damaged byte in it
   * at mount, naming the blob and {@code _0.cfs}. Under that check (a large compound file is verified range by range
   * only by Lucene), the format catches it itself: a damaged {@code .vfi} fails the opening naming it (read whole and
   * checksummed), a damaged {@code .vec} the integrity check naming it (Lucene's flat reader).
   */
  @Test
  void aDamagedVectorsFileIsCaughtNamingIt() throws Exception {
    for (String extension : List.of("vfi", "vec")) {
      Path copy = tmp.resolve("damaged-" + extension);
      EngineSnapshotRepository damaged = damagedCopy(copy, extension);
      Exception e = assertThrows(Exception.class,
          () -> damaged.mount(catalog, "damaged-" + extension, "snap-2", "vectors"));
      String message = causes(e);
      assertTrue(message.contains("_0.cfs") && message.contains("checksum mismatch"), message);
      assertTrue(catalog.list("damaged-" + extension + "*").isEmpty(), "nothing of a damaged shard is mounted");
    }
    try (Directory dir = shardDirectory(tmp.resolve("damaged-vfi"))) {
      Exception e = assertThrows(Exception.class, () -> DirectoryReader.open(dir).close());
      String message = causes(e);
      assertTrue(message.contains("_0_ES94HnswScalarQuantizedVectorsFormat_0.vfi") && message.contains("checksum"),
          message);
    }
    try (Directory dir = shardDirectory(tmp.resolve("damaged-vec"));
        DirectoryReader reader = DirectoryReader.open(dir)) {
      Exception e = assertThrows(Exception.class, () -> {
        for (LeafReaderContext leaf : reader.leaves()) {
          leaf.reader().checkIntegrity();
        }
      });
      String message = causes(e);
      assertTrue(message.contains("_0_ES94HnswScalarQuantizedVectorsFormat_0.vec") && message.contains("checksum"),
          message);
    }
    // the untouched shard passes the same check
    try (Directory dir = shardDirectory(fixture.resolve("repo"));
        DirectoryReader reader = DirectoryReader.open(dir)) {
      for (LeafReaderContext leaf : reader.leaves()) {
        leaf.reader().checkIntegrity();
      }
      assertEquals(200, reader.numDocs());
    }
  }

  private static String causes(Throwable e) {
    StringBuilder all = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      all.append(t).append('\n');
      for (Throwable s : t.getSuppressed()) {
        all.append(s).append('\n');
      }
    }
    return all.toString();
  }

  /** The files of the {@code vectors} shard of the repository at {@code repo}, under their Lucene names. */
  private static Directory shardDirectory(Path repo) throws Exception {
    EngineSnapshotRepository r = EngineSnapshotRepository.open(FileSystemBlobStore.open(repo, false));
    String shard = EngineSnapshotRepository.shard("snap-2", "vectors", 0);
    SnapshotManifest manifest = r.parseManifest(shard, r.readManifestBytes(shard));
    Directory dir = new ByteBuffersDirectory();
    for (FileEntry f : manifest.files()) {
      byte[] bytes = f.isKeptWhole() ? f.wholeBytes() : Files.readAllBytes(repo.resolve(f.blobName()));
      try (IndexOutput out = dir.createOutput(f.name(), IOContext.DEFAULT)) {
        out.writeBytes(bytes, bytes.length);
      }
    }
    return dir;
  }

  /**
   * A copy of the fixture's repository at {@code copy} with one byte in the middle of the vectors' {@code extension}
   * file (inside the compound file's blob) flipped.
   */
  private static EngineSnapshotRepository damagedCopy(Path copy, String extension) throws Exception {
    return DamagedFile.flip(fixture.resolve("repo"), copy, "snap-2", "vectors",
        "_ES94HnswScalarQuantizedVectorsFormat_0." + extension, 0x04).repository();
  }
}
