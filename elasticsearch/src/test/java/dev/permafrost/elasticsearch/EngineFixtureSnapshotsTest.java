/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.permafrost.blob.CountingBlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.Lease;
import dev.permafrost.catalog.SearchRequest;
import dev.permafrost.catalog.SearchResponse;
import dev.permafrost.fixture.EngineDriver;
import dev.permafrost.fixture.EngineFixture;
import dev.permafrost.snapshot.SnapshotException;
import dev.permafrost.store.ReadCost;
import dev.permafrost.store.SharedRegionCache;
import dev.permafrost.testutil.Waits;
import java.io.IOException;
import java.nio.file.Path;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FilterCodecReader;
import org.apache.lucene.index.FilterLeafReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SegmentReader;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Sort;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.util.Version;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Mounts the snapshots real Elasticsearch 9.5, 9.3, 9.1 and 8.19 and OpenSearch 3.9 and 2.19 nodes wrote
 * ({@link EngineFixture}: the same documents and changes as the OpenSearch 3.2 fixture, plus an index at
 * {@code best_compression} and one force-merged to a single segment) and asks every query the node answered: the
 * total hits, the top ten ids, sorted on {@code seq}, and those hits' {@code _source} must be the node's.
 * Elasticsearch's own formats are read (its codecs' zstd stored fields, {@code ES812Postings},
 * {@code ES87BloomFilter}); its vector indices before 9.4 are refused at mount by name.
 */
class EngineFixtureSnapshotsTest {
  @TempDir static Path tmp;
  static SharedRegionCache cache;
  static Catalog catalog;
  static final Map<EngineFixture, Mounted> MOUNTED = new EnumMap<>(EngineFixture.class);

  record Mounted(Path fixture, JsonNode answers, EngineSnapshotRepository repository) {}

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
   * The engines whose segments the Lucene on the class path reads: every one on the Lucene this project builds on; on
   * the Lucene floor (10.3, which CI tests too), not those a newer Lucene wrote (see {@link #aSnapshotIsReadOrRefused}).
   */
  static Stream<EngineFixture> readable() {
    return Stream.of(EngineFixture.values()).filter(EngineFixtureSnapshotsTest::luceneReads);
  }

  static Stream<EngineFixture> readableElasticsearch() {
    return readable().filter(e -> e.name().startsWith("ELASTICSEARCH"));
  }

  private static boolean luceneReads(EngineFixture engine) {
    try {
      return Version.LATEST.onOrAfter(Version.parse(engine.luceneVersion()));
    } catch (ParseException e) {
      throw new IllegalStateException(engine + "'s Lucene version " + engine.luceneVersion(), e);
    }
  }

  /**
   * Whether an engine's snapshot is read is the Lucene on the class path's to say: a standard index of each engine
   * mounts and opens where that Lucene is the engine's or newer, and otherwise (OpenSearch 3.9's and Elasticsearch
   * 9.5's {@code Lucene104} segments on Lucene 10.3) fails at mount naming the codec and the Lucene read, not later
   * inside a search.
   */
  @ParameterizedTest
  @EnumSource(EngineFixture.class)
  void aSnapshotIsReadOrRefused(EngineFixture engine) throws Exception {
    Path fixture = engine.ensure();
    EngineSnapshotRepository repository = EngineSnapshotRepository.open(FileSystemBlobStore.open(fixture.resolve("repo"),
        false));
    String name = "read-or-refused-" + engine;
    if (luceneReads(engine)) {
      repository.mount(catalog, name, "snap-2", "logs-a");
      try (Lease lease = catalog.acquire(name + ".0")) {
        assertTrue(lease.reader().maxDoc() > 0, engine.toString());
      } finally {
        for (var mount : catalog.list(name + ".*")) {
          catalog.unmount(mount.name());
        }
      }
    } else {
      SnapshotException.UnsupportedFormat e = assertThrows(SnapshotException.UnsupportedFormat.class,
          () -> repository.mount(catalog, name, "snap-2", "logs-a"), engine.toString());
      assertTrue(e.getMessage().contains("Lucene10") && e.getMessage().contains("up to " + Version.LATEST)
          && e.getMessage().contains("index 'logs-a'"), e.getMessage());
      assertTrue(catalog.list(name + "*").isEmpty(), "nothing of a refused index is mounted");
    }
  }

  /**
   * Whether this reader reads an index of the engine's fixture: not the ones the fixture lists as unreadable (indexed
   * vectors) but 9.5's vectors ({@code ES94HnswScalarQuantizedVectorsFormat}, read; {@code VectorsSnapshotTest} asks
   * it the node's queries); Elasticsearch's logsdb and time_series ones (in {@code ES819TSDB}, {@code ES8193TSDB}
   * and, 9.5's time_series, {@code ES95TSDB}) are.
   */
  static boolean reads(EngineFixture engine, JsonNode answers, String index) {
    if (index.equals("vectors") && engine == EngineFixture.ELASTICSEARCH_95) {
      return true;
    }
    if (List.of("logs-db", "metrics-ts").contains(index) || tsdbIndices(answers).contains(index)) {
      return engine.name().startsWith("ELASTICSEARCH");
    }
    return !answers.path("unreadable").has(index);
  }

  /** The indices in Elasticsearch's TSDB doc-values formats: those the answers list under {@code tsdb}, any snapshot. */
  private static Set<String> tsdbIndices(JsonNode answers) {
    Set<String> indices = new TreeSet<>();
    answers.path("tsdb").forEach(snapshot -> snapshot.fieldNames().forEachRemaining(indices::add));
    return indices;
  }

  /** The engine's fixture, its snapshots' readable indices mounted as {@code <engine>-<snapshot>-<index>.<shard>}. */
  static synchronized Mounted mounted(EngineFixture engine) throws Exception {
    Mounted m = MOUNTED.get(engine);
    if (m == null) {
      Path fixture = engine.ensure();
      JsonNode answers = new ObjectMapper().readTree(fixture.resolve("answers.json").toFile());
      EngineSnapshotRepository repository = EngineSnapshotRepository.open(FileSystemBlobStore.open(fixture.resolve("repo"), false));
      for (String snapshot : List.of("snap-1", "snap-2")) {
        for (String index : repository.indices(snapshot)) {
          if (reads(engine, answers, index)) {
            repository.mount(catalog, engine + "-" + snapshot + "-" + index, snapshot, index);
          }
        }
      }
      m = new Mounted(fixture, answers, repository);
      MOUNTED.put(engine, m);
    }
    return m;
  }

  @ParameterizedTest
  @MethodSource("readable")
  void everyQueryAnswersAsTheNodeDid(EngineFixture engine) throws Exception {
    Mounted m = mounted(engine);
    JsonNode queries = new ObjectMapper().readTree(m.fixture().resolve("queries.json").toFile());
    MappedQueryParser parser = new MappedQueryParser(m.repository().indexMetadata("snap-1", "logs-a").mapping());
    Sort bySeq = new Sort(parser.sortField("seq", true));
    int compared = 0;
    // each snapshot as the queries name their indices; then best_compression and the merged index alone, at snap-2
    List<String[]> runs = List.of(new String[] {"snap-1", null}, new String[] {"snap-2", null},
        new String[] {"snap-2", "logs-best"}, new String[] {"snap-2", "logs-merged"});
    for (String[] run : runs) {
      for (JsonNode q : queries) {
        List<String> globs = new ArrayList<>();
        String indices = run[1] != null ? run[1] : q.get("indices").asText();
        for (String index : indices.split(",")) {
          globs.add(engine + "-" + run[0] + "-" + index + ".*");
        }
        SearchResponse response = catalog.search(SearchRequest.builder(parser.parse(q.get("query_string").asText()))
            .indices(globs.toArray(String[]::new)).size(10).sort(bySeq).exactTotalHits(true)
            .fields(EngineDocuments.ID, EngineDocuments.SOURCE).build());
        JsonNode expected = run[1] == null
            ? m.answers().path("snapshots").path(run[0]).path(q.get("id").asText())
            : m.answers().path("variants").path(run[1]).path(q.get("id").asText());
        String what = engine + " " + run[0] + " " + (run[1] == null ? "" : run[1] + " ") + q;
        assertTrue(expected.has("total") && expected.has("sources"), "the node answered, with its hits' _source, "
            + what);
        NodeAnswers.assertAnswered(expected, response, what);
        compared++;
      }
    }
    assertEquals(4 * queries.size(), compared);
    assertTrue(queries.size() >= 80, "the fixed queries and the random ones: " + queries.size());
  }

  @ParameterizedTest
  @MethodSource("readable")
  void countsDocumentsAsTheNodeDoes(EngineFixture engine) throws Exception {
    Mounted m = mounted(engine);
    for (String snapshot : List.of("snap-1", "snap-2")) {
      for (var it = m.answers().path("docs").path(snapshot).fields(); it.hasNext(); ) {
        var e = it.next();
        if (!reads(engine, m.answers(), e.getKey())) {
          continue;
        }
        SearchResponse r = catalog.search(SearchRequest.builder(new MatchAllDocsQuery())
            .indices(engine + "-" + snapshot + "-" + e.getKey() + ".*").size(1).exactTotalHits(true).build());
        assertEquals(e.getValue().asLong(), r.totalHits().value(), engine + " " + snapshot + " " + e.getKey());
      }
    }
  }

  @ParameterizedTest
  @MethodSource("readable")
  void findsDocumentsByIdAndNotDeletedOnes(EngineFixture engine) throws Exception {
    mounted(engine);
    for (String index : List.of("logs-b", "logs-best", "logs-merged")) {
      String glob = engine + "-snap-2-" + index + ".*";
      SearchResponse any = catalog.search(SearchRequest.builder(new MatchAllDocsQuery()).indices(glob).size(40)
          .fields(EngineDocuments.ID).build());
      assertEquals(40, any.hits().size());
      for (SearchResponse.Hit hit : any.hits()) {
        String id = EngineDocuments.id(hit.document());
        SearchResponse one = catalog.search(SearchRequest.builder(EngineDocuments.idQuery(id)).indices(glob).size(2)
            .exactTotalHits(true).fields(EngineDocuments.ID).build());
        assertEquals(1, one.totalHits().value(), engine + " " + index + " " + id);
        assertEquals(id, EngineDocuments.id(one.hits().get(0).document()));
      }
    }
    // seq 3007 was deleted from logs-b before snap-2, and was there in snap-1 (ids follow seq: 3007 % 3 == 1)
    String deleted = EngineDriver.id(3007);
    for (String snapshot : List.of("snap-1", "snap-2")) {
      SearchResponse r = catalog.search(SearchRequest.builder(EngineDocuments.idQuery(deleted))
          .indices(engine + "-" + snapshot + "-logs-b.*").size(1).exactTotalHits(true).build());
      assertEquals(snapshot.equals("snap-1") ? 1 : 0, r.totalHits().value(), engine + " " + snapshot + " " + deleted);
    }
  }

  /**
   * The formats each engine wrote, as the segments record them: what the other tests read through. Every segment of
   * every mounted shard, at both snapshots, passes {@code checkIntegrity}.
   */
  @ParameterizedTest
  @MethodSource("readable")
  void readsTheFormatsTheEngineWroteAndVerifiesEveryFile(EngineFixture engine) throws Exception {
    Mounted m = mounted(engine);
    Set<String> codecs = new TreeSet<>();
    Set<String> postings = new TreeSet<>();
    Set<String> docValues = new TreeSet<>();
    Set<String> storedFields = new TreeSet<>();
    Map<String, String> written = new TreeMap<>();
    int shards = 0;
    for (var mount : catalog.list(engine + "-snap-*")) {
      String index = mount.name().substring((engine + "-snap-N-").length(), mount.name().lastIndexOf('.'));
      // the formats of the three kinds of index as snap-2 holds them
      boolean described = mount.name().startsWith(engine + "-snap-2-") && mount.name().endsWith(".0")
          && List.of("logs-a", "logs-best", "logs-merged").contains(index);
      try (Lease lease = catalog.acquire(mount.name())) {
        for (LeafReaderContext leaf : lease.reader().leaves()) {
          LeafReader r = leaf.reader();
          while (r instanceof FilterLeafReader || r instanceof FilterCodecReader) {
            r = r instanceof FilterLeafReader f ? f.getDelegate() : ((FilterCodecReader) r).getDelegate();
          }
          SegmentReader segment = (SegmentReader) r;
          if (described) {
            written.putIfAbsent(index, writtenFormats(segment));
            codecs.add(index + ":" + segment.getSegmentInfo().info.getCodec().getName());
            String mode = segment.getSegmentInfo().info.getAttribute("Lucene90StoredFieldsFormat.mode");
            if (mode != null) {
              storedFields.add(index + ":" + mode);
            }
            for (FieldInfo fi : segment.getFieldInfos()) {
              String format = fi.getAttribute("PerFieldPostingsFormat.format");
              if (format != null) {
                postings.add(format);
              }
              String dvFormat = fi.getAttribute("PerFieldDocValuesFormat.format");
              if (dvFormat != null) {
                docValues.add(dvFormat);
              }
            }
          }
          segment.checkIntegrity(); // every file against its footer's checksum, the bloom filters' too
        }
      }
      shards++;
    }
    // snap-1: logs-a and logs-b, two shards each; snap-2: those, logs-best and logs-merged; and the logsdb and
    // time_series indices (one shard each) in the snapshots that hold them, where they are read
    int tsdbShards = 0;
    for (String snapshot : List.of("snap-1", "snap-2")) {
      for (String index : tsdbIndices(m.answers())) {
        if (m.answers().path("docs").path(snapshot).has(index) && reads(engine, m.answers(), index)) {
          tsdbShards++;
        }
      }
    }
    int vectorShards = m.answers().path("docs").path("snap-2").has("vectors") && reads(engine, m.answers(), "vectors")
        ? 1 : 0;
    assertEquals(4 + 6 + tsdbShards + vectorShards, shards, engine + ": shards verified");
    written.forEach((index, formats) -> System.out.printf("%s: %s writes %s%n", engine, index, formats));
    switch (engine) {
      case ELASTICSEARCH_95 -> {
        assertEquals(Set.of("logs-a:Lucene104", "logs-best:Elasticsearch92Lucene103", "logs-merged:Lucene104"), codecs);
        assertEquals(Set.of("ES87BloomFilter", "Lucene104"), postings);
      }
      case ELASTICSEARCH_93 -> {
        assertEquals(Set.of("logs-a:Lucene103", "logs-best:Elasticsearch92Lucene103", "logs-merged:Lucene103"), codecs);
        assertEquals(Set.of("ES87BloomFilter", "Lucene103"), postings);
      }
      case ELASTICSEARCH_9 -> {
        assertEquals(Set.of("logs-a:Lucene101", "logs-best:Elasticsearch900Lucene101", "logs-merged:Lucene101"), codecs);
        assertEquals(Set.of("ES87BloomFilter", "Lucene101"), postings);
      }
      case ELASTICSEARCH_8 -> {
        assertEquals(Set.of("logs-a:Lucene912", "logs-best:Elasticsearch816", "logs-merged:Lucene912"), codecs);
        assertEquals(Set.of("ES87BloomFilter", "ES812Postings"), postings);
      }
      case OPENSEARCH_2 -> {
        assertEquals(Set.of("logs-a:Lucene912", "logs-best:Lucene912", "logs-merged:Lucene912"), codecs);
        assertEquals(Set.of("Lucene912"), postings);
      }
      case OPENSEARCH_3_9 -> {
        // plain Lucene 10.4 formats, whatever index.codec says: best_compression is Lucene's DEFLATE mode
        assertEquals(Set.of("logs-a:Lucene104", "logs-best:Lucene104", "logs-merged:Lucene104"), codecs);
        assertEquals(Set.of("Lucene104"), postings);
        assertEquals(Set.of("Lucene90"), docValues);
        assertEquals(Set.of("logs-a:BEST_SPEED", "logs-best:BEST_COMPRESSION", "logs-merged:BEST_SPEED"), storedFields);
      }
    }
  }

  /**
   * What a segment was written with, for the test's report: its codec, each field's postings and doc values formats
   * (the names the per-field formats record), its attributes (the stored fields' mode) and the codec name in the
   * header of every file, inside the compound file too (stored fields, points, norms, the bloom filter's wrapped
   * postings).
   */
  static String writtenFormats(SegmentReader segment) throws IOException {
    var info = segment.getSegmentInfo().info;
    Map<String, Set<String>> postings = new TreeMap<>();
    Map<String, Set<String>> docValues = new TreeMap<>();
    for (FieldInfo fi : segment.getFieldInfos()) {
      String p = fi.getAttribute("PerFieldPostingsFormat.format");
      if (p != null) {
        postings.computeIfAbsent(p, k -> new TreeSet<>()).add(fi.name);
      }
      String d = fi.getAttribute("PerFieldDocValuesFormat.format");
      if (d != null) {
        docValues.computeIfAbsent(d, k -> new TreeSet<>()).add(fi.name);
      }
    }
    Map<String, String> headers = new TreeMap<>();
    headers(info.dir, info.files(), info.name, headers);
    if (info.getUseCompoundFile()) {
      try (var cfs = info.getCodec().compoundFormat().getCompoundReader(info.dir, info)) {
        headers(cfs, List.of(cfs.listAll()), info.name, headers);
      }
    }
    return "codec " + info.getCodec().getName() + "; postings " + postings + "; doc values " + docValues
        + "; attributes " + new TreeMap<>(info.getAttributes()) + "; headers " + headers;
  }

  /** Each file's codec header name, by the file's name without the segment's. */
  private static void headers(Directory dir, Collection<String> files, String segment,
      Map<String, String> into) throws IOException {
    for (String file : files) {
      try (IndexInput in = dir.openInput(file, IOContext.READONCE)) {
        if (in.length() >= 4 && CodecUtil.readBEInt(in) == CodecUtil.CODEC_MAGIC) {
          into.put(file.substring(segment.length()), in.readString());
        }
      }
    }
  }

  /**
   * The indexed vectors of every engine before 9.4 are refused at mount naming the format and the fields (9.5's
   * mount); 8.19's to 9.5's logsdb and time_series indices ({@code ES819TSDB}, {@code ES8193TSDB}, {@code ES95TSDB})
   * mount ({@code TsdbSnapshotsTest} searches them).
   */
  @ParameterizedTest
  @MethodSource("readableElasticsearch")
  void unreadFormatsAreRefusedAtMountNamingFormatAndField(EngineFixture engine) throws Exception {
    Mounted m = mounted(engine);
    for (String index : List.of("logs-db", "metrics-ts")) {
      m.repository().mount(catalog, engine + "-mounts-" + index, "snap-2", index);
      try (Lease lease = catalog.acquire(engine + "-mounts-" + index + ".0")) {
        assertTrue(lease.reader().numDocs() > 0, engine + " " + index);
      } finally {
        catalog.unmount(engine + "-mounts-" + index + ".0");
      }
    }
    if (engine == EngineFixture.ELASTICSEARCH_95) {
      // 9.5's int8_hnsw vectors are read (ES94HnswScalarQuantizedVectorsFormat): the index mounts
      m.repository().mount(catalog, engine + "-mounts-vectors", "snap-2", "vectors");
      try (Lease lease = catalog.acquire(engine + "-mounts-vectors.0")) {
        assertEquals(200, lease.reader().numDocs(), engine + " vectors");
        for (LeafReaderContext leaf : lease.reader().leaves()) {
          assertEquals(lease.reader().numDocs(), leaf.reader().getFloatVectorValues("embedding").size());
        }
      } finally {
        catalog.unmount(engine + "-mounts-vectors.0");
      }
    } else {
      SnapshotException.UnsupportedFormat vectors = assertThrows(SnapshotException.UnsupportedFormat.class,
          () -> m.repository().mount(catalog, engine + "-vectors", "snap-2", "vectors"));
      assertTrue(vectors.getMessage().contains("[embedding]") && vectors.getMessage().contains("dense_vector")
          // the format the engine wrote for an int8_hnsw field of 4 dimensions
          && vectors.getMessage().contains(switch (engine) {
            case ELASTICSEARCH_93 -> "ES93HnswScalarQuantizedVectorsFormat";
            default -> "ES814HnswScalarQuantizedVectorsFormat";
          })
          && vectors.getMessage().matches("(?s).*blob indices/[^ ]+/0/snap-[^ ]+\\.dat.*"), vectors.getMessage());
    }
    assertTrue(catalog.list(engine + "-logsdb*", engine + "-metrics*", engine + "-vectors*", engine + "-mounts-*").isEmpty(),
        "nothing of a refused index is mounted");
  }

  /**
   * A byte flipped in the {@code .bfm} file of {@code _id}'s bloom-filter wrapper (inside a compound file's blob) fails
   * the shard's opening with an error naming the blob, the file and the format, and no search answers from it.
   */
  @ParameterizedTest
  @MethodSource("readableElasticsearch")
  void aDamagedBloomFilterMetadataFileFailsNamingTheBlobAndFormat(EngineFixture engine) throws Exception {
    Mounted m = mounted(engine);
    DamagedFile flipped = DamagedFile.flip(m.fixture().resolve("repo"), tmp.resolve("damaged-" + engine), "snap-2",
        "logs-merged", ".bfm", 0x04);
    EngineSnapshotRepository damaged = flipped.repository();
    // the shard is opened when it is mounted: the damage fails the mount, and nothing is left mounted to search
    Exception e = assertThrows(Exception.class, () -> damaged.mount(catalog, engine + "-damaged", "snap-2", "logs-merged"));
    StringBuilder all = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      all.append(t).append('\n');
    }
    String message = all.toString();
    assertTrue(message.contains(flipped.shortBlobName()) && message.contains(".bfm") && message.contains("ES87BloomFilter"), message);
    assertTrue(catalog.list(engine + "-damaged*").isEmpty(), "nothing of a damaged shard is mounted");
  }

  /**
   * A cold shard of each engine opens in as few waves as an OpenSearch 3.2 one: the wrapper's {@code .bfm} and the
   * files of the formats it wraps are read with the rest of the opening's reads, not after them; a logsdb shard's
   * {@code ES819TSDB} metadata too. The shard is opened when it is mounted (its formats are checked then): the mount
   * costs the manifest and those two waves, and the first search's open then makes no request. Waves are counted by
   * dependency ({@link ReadCost#waves()}), so the count is the same however fast or busy the machine is.
   */
  @ParameterizedTest
  @MethodSource("readable")
  void aColdShardOpensInTwoWaves(EngineFixture engine) throws Exception {
    Mounted m = mounted(engine);
    try (SharedRegionCache cold = SharedRegionCache.builder().path(tmp.resolve("cold-" + engine)).size(64 << 20)
            .regionSize(1 << 20).build();
        Catalog coldCatalog = Catalog.builder(cold).build()) {
      CountingBlobStore counted = new CountingBlobStore(FileSystemBlobStore.open(m.fixture().resolve("repo"), false));
      EngineSnapshotRepository fresh = EngineSnapshotRepository.open(counted);
      List<String> indices = new ArrayList<>(List.of("logs-a", "logs-best"));
      if (reads(engine, m.answers(), "logs-db")) {
        indices.add("logs-db"); // its TSDB doc values' metadata (and .dvs) is read with the rest, as Lucene's own is
      }
      for (String index : indices) {
        String shard = EngineSnapshotRepository.shard("snap-2", index, 0);
        // the repository's facts about the index (its metadata, its shards' paths), read once per index, not counted
        fresh.parseManifest(shard, fresh.readManifestBytes(shard));
        long before = counted.requests();
        ReadCost cost = new ReadCost();
        try (ReadCost.Scope scope = ReadCost.attach(cost)) {
          coldCatalog.mount("cold-" + index, fresh, shard);
        }
        Waits.awaitNoFetch(cold); // a request counts when asked for; the store sees it when it is sent
        long requests = counted.requests() - before;
        System.out.printf("%s: cold open of a shard of %s at mount: %d requests in %d waves (%d by the clock)%n", engine,
            index, requests, cost.waves(), cost.clockWaves());
        assertEquals(1 + cost.requests(), requests, "the manifest's request, and every request of the open counted in"
            + " its cost");
        assertEquals(2, cost.waves(), engine + " " + index + ": cold open took " + cost.waves() + " waves of "
            + requests + " requests");
        long afterMount = counted.requests();
        try (Lease lease = coldCatalog.acquire("cold-" + index)) {
          assertTrue(lease.reader().maxDoc() > 0);
        }
        Waits.awaitNoFetch(cold);
        assertEquals(afterMount, counted.requests(), engine + " " + index + ": the first open after the mount's");
      }
    }
  }
}
