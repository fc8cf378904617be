/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.fixture.UpgradeFixture;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.IndexOutput;
import org.apache.lucene.util.Version;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Mounts the logsdb and time_series indices an Elasticsearch 9.3.3 node created and a 9.5.3 node kept writing after a
 * restore ({@link UpgradeFixture}: {@code logs-up} and {@code metrics-up}; {@code snap-1} the 9.3.3 node's,
 * {@code snap-2} one shard each of 9.3.3's segments in {@code ES819TSDB} version 2 with 9.5.3's soft deletes as
 * {@code Lucene90} doc-values updates, and 9.5.3's segments in {@code ES819TSDB} version 8; {@code snap-3} the same
 * force-merged to one 9.5.3 segment), and checks them against the nodes as {@link TsdbSnapshotsTest} checks the
 * others: every search (total, ids, sort values, rebuilt {@code _source}), aggregation and document's doc values,
 * through a cache that holds it all and one that holds little of it.
 */
class UpgradedTsdbSnapshotsTest {
  @TempDir static Path tmp;
  static final Map<String, SharedRegionCache> CACHES = new TreeMap<>();
  static final Map<String, Catalog> CATALOGS = new TreeMap<>();
  static final Map<String, TsdbSnapshotsTest.Mounted> MOUNTED = new TreeMap<>();

  @BeforeAll
  static void openCaches() throws Exception {
    // a Lucene older than 9.5.3's (the floor, 10.3) cannot open what it wrote: refusing that is a test of its own
    Assumptions.assumeTrue(Version.LATEST.onOrAfter(Version.parse(UpgradeFixture.WRITTEN_BY.luceneVersion())),
        "the Lucene on the class path, " + Version.LATEST + ", reads Elasticsearch 9.5.3's segments");
    // large: every file stays; tiny: 32 regions of 32 KiB, so reads of a search evict each other's
    for (String size : List.of("large", "tiny")) {
      SharedRegionCache cache = size.equals("large")
          ? SharedRegionCache.builder().path(tmp.resolve(size)).size(64 << 20).regionSize(1 << 20).build()
          : SharedRegionCache.builder().path(tmp.resolve(size)).size(1 << 20).regionSize(32 << 10).build();
      CACHES.put(size, cache);
      CATALOGS.put(size, Catalog.builder(cache).build());
    }
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

  static synchronized TsdbSnapshotsTest.Mounted mounted(String cache) throws Exception {
    TsdbSnapshotsTest.Mounted m = MOUNTED.get(cache);
    if (m == null) {
      m = TsdbSnapshotsTest.mount(CATALOGS.get(cache), "upgraded-" + cache, UpgradeFixture.ensure(), Set.of());
      assertEquals(Set.of("snap-1", "snap-2", "snap-3"), fieldNames(m.answers().path("tsdb")));
      assertEquals(6, TsdbSnapshotsTest.indices(m).size(), "logs-up and metrics-up in three snapshots");
      MOUNTED.put(cache, m);
    }
    return m;
  }

  private static Set<String> fieldNames(com.fasterxml.jackson.databind.JsonNode node) {
    Set<String> names = new TreeSet<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  @ParameterizedTest
  @ValueSource(strings = {"large", "tiny"})
  void everySearchAnswersAsTheNodesDid(String cache) throws Exception {
    int compared = TsdbSnapshotsTest.compareSearches(CATALOGS.get(cache), mounted(cache));
    assertTrue(compared >= 6 * 165, "searches compared: " + compared);
  }

  @ParameterizedTest
  @ValueSource(strings = {"large", "tiny"})
  void everyDocumentsDocValuesAreTheValuesItWasIndexedWith(String cache) throws Exception {
    long checked = TsdbSnapshotsTest.compareDocValues(CATALOGS.get(cache), mounted(cache));
    assertTrue(checked > 100_000, "values checked: " + checked);
  }

  @Test
  void aggregationsOverDocValuesCountAsTheNodesDid() throws Exception {
    int compared = TsdbSnapshotsTest.compareAggregations(CATALOGS.get("large"), mounted("large"));
    assertTrue(compared >= 6 * 15 * 3, "aggregations compared: " + compared);
  }

  @Test
  void aSourceRebuiltFromDocValuesIsTheSourceIndexed() throws Exception {
    int checked = TsdbSnapshotsTest.compareRebuiltSources(CATALOGS.get("large"), mounted("large"));
    assertTrue(checked > 20_000, "documents checked: " + checked);
  }

  /**
   * What the nodes wrote, read off the bytes of the snapshots' files (no doc-values reader involved): in
   * {@code snap-2} each shard holds 9.3.3's segments (Lucene 10.3.2) with {@code ES819TSDB} doc values at version 2
   * and 9.5.3's (Lucene 10.5.1) with {@code ES819TSDB} at version 8 (a {@code .dvs} beside them), and 9.3.3's
   * segments carry 9.5.3's soft deletes as doc-values updates ({@code _N_M_Lucene90_0.dvm/.dvd/.dvs}); in
   * {@code snap-3} one segment, 9.5.3's. No {@code ES8193TSDB} or {@code ES95TSDB} anywhere: the index's creation
   * version picks the format's name.
   */
  @Test
  void theUpgradedShardsHoldSegmentsOfBothVersions() throws Exception {
    Path fixture = UpgradeFixture.ensure();
    EngineSnapshotRepository repository = EngineSnapshotRepository.open(FileSystemBlobStore.open(fixture.resolve("repo"),
        false));
    for (String index : List.of("logs-up", "metrics-up")) {
      for (String snapshot : List.of("snap-1", "snap-2", "snap-3")) {
        String what = index + " " + snapshot;
        try (Directory dir = files(repository, fixture.resolve("repo"), snapshot, index)) {
          SegmentInfos infos = SegmentInfos.readLatestCommit(dir);
          Map<String, String> headers = new TreeMap<>();
          Set<String> luceneVersions = new TreeSet<>();
          for (SegmentCommitInfo segment : infos) {
            String lucene = segment.info.getVersion().toString();
            luceneVersions.add(lucene);
            Map<String, String> own = new TreeMap<>();
            headers(dir, segment.files(), own);
            if (segment.info.getUseCompoundFile()) {
              try (Directory cfs = segment.info.getCodec().compoundFormat().getCompoundReader(dir, segment.info)) {
                headers(cfs, List.of(cfs.listAll()), own);
              }
            }
            for (var h : own.entrySet()) {
              String file = h.getKey();
              if (file.contains("TSDB")) {
                assertTrue(file.matches("_[0-9a-z]+_ES819TSDB_0\\.dv[mds]"), what + ": " + file);
                int version = lucene.equals("10.3.2") ? 2 : 8;
                String codec = file.endsWith(".dvm") ? "ES819TSDBDocValuesMetadata"
                    : file.endsWith(".dvd") ? "ES819TSDBDocValuesData" : "ES819TSDBDocValuesSkip";
                assertEquals(codec + " " + version, h.getValue(), what + ": " + file + " of Lucene " + lucene);
                assertTrue(version == 8 || !file.endsWith(".dvs"), what + ": " + file);
              }
            }
            assertTrue(own.keySet().stream().anyMatch(f -> f.endsWith("ES819TSDB_0.dvm")), what + ": " + own);
            if (lucene.equals("10.5.1")) {
              assertTrue(own.containsKey(segment.info.name + "_ES819TSDB_0.dvs")
                  || !own.containsKey(segment.info.name + "_ES819TSDB_0.dvm"), what + ": " + own);
            }
            headers.putAll(own);
            System.out.printf("upgraded %s %s: segment %s Lucene %s codec %s, %d docs, %d deleted, del gen %d,"
                + " dv gen %d, %s%n", snapshot, index, segment.info.name, lucene, segment.info.getCodec().getName(),
                segment.info.maxDoc(), segment.getDelCount() + segment.getSoftDelCount(), segment.getDelGen(),
                segment.getDocValuesGen(), own);
          }
          System.out.printf("upgraded %s %s: commit user data %s, written by Lucene %s%n", snapshot, index,
              new TreeMap<>(infos.getUserData()), infos.getCommitLuceneVersion());
          List<String> updates = new ArrayList<>(headers.keySet().stream()
              .filter(f -> f.matches("_[0-9a-z]+_[0-9a-z]+_Lucene90_0\\.dv[mds]")).toList());
          switch (snapshot) {
            case "snap-1" -> {
              assertEquals(Set.of("10.3.2"), luceneVersions, what);
              assertEquals(List.of(), updates, what);
            }
            case "snap-2" -> {
              assertEquals(Set.of("10.3.2", "10.5.1"), luceneVersions, what + ": both nodes' segments in one shard");
              assertTrue(updates.size() >= 3, what + ": 9.5.3's soft deletes of 9.3.3's documents: " + headers);
              for (String update : updates) {
                // Lucene 10.5's Lucene90 doc values: version 2, the skip index in a .dvs of its own
                assertEquals((update.endsWith(".dvm") ? "Lucene90DocValuesMetadata"
                    : update.endsWith(".dvd") ? "Lucene90DocValuesData" : "Lucene90DocValuesSkipIndex") + " 2",
                    headers.get(update), update);
              }
            }
            default -> {
              assertEquals(Set.of("10.5.1"), luceneVersions, what);
              assertEquals(1, infos.size(), what + ": force-merged");
            }
          }
          assertEquals(snapshot.equals("snap-1") ? "10.3.2" : "10.5.1", infos.getCommitLuceneVersion().toString(),
              what);
          // the index version of the node that committed: 9.3.3's, then 9.5.3's
          assertEquals(snapshot.equals("snap-1") ? "9060001" : "9111000", infos.getUserData().get("es_version"), what);
        }
      }
    }
  }

  /** The files of a shard's snapshot, whole, in memory. */
  private static Directory files(EngineSnapshotRepository repository, Path repo, String snapshot, String index)
      throws IOException {
    String shard = EngineSnapshotRepository.shard(snapshot, index, 0);
    var manifest = repository.parseManifest(shard, repository.readManifestBytes(shard));
    ByteBuffersDirectory dir = new ByteBuffersDirectory();
    for (FileEntry f : manifest.files()) {
      byte[] bytes = f.isKeptWhole() ? f.wholeBytes() : Files.readAllBytes(repo.resolve(f.blobName()));
      try (IndexOutput out = dir.createOutput(f.name(), IOContext.DEFAULT)) {
        out.writeBytes(bytes, bytes.length);
      }
    }
    return dir;
  }

  /** Each file's index header: its codec name and version, by the file's name. */
  private static void headers(Directory dir, Iterable<String> files, Map<String, String> into) throws IOException {
    for (String file : files) {
      try (IndexInput in = dir.openInput(file, IOContext.READONCE)) {
        if (in.length() >= 4 && CodecUtil.readBEInt(in) == CodecUtil.CODEC_MAGIC) {
          String codec = in.readString();
          into.put(file, codec + " " + CodecUtil.readBEInt(in));
        }
      }
    }
  }
}
