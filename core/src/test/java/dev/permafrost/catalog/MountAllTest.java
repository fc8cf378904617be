/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.CountingBlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.snapshot.ManifestRef;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.snapshot.TestManifests;
import dev.permafrost.store.SharedRegionCache;
import dev.permafrost.testutil.RandomIndexes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mounting many snapshots at once: failures are reported one by one and never stop the others; the specs of what is
 * mounted, kept as lines, mount the same again after a clean restart of cache and catalog without a store request.
 */
class MountAllTest {
  private static final int SNAPSHOTS = 40;
  @TempDir Path tmp;

  @Test
  void mountsManyReportsEachFailureAndRemountsAfterARestartWithoutARequest() throws IOException {
    CountingBlobStore store = new CountingBlobStore(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    SnapshotRepository repo = SnapshotRepository.open(store);
    long hits;
    try (Directory local = FSDirectory.open(tmp.resolve("local"))) {
      RandomIndexes.build(local, new Random(11), 300, 1);
      repo.createSnapshot("snap-0", local);
      try (DirectoryReader reader = DirectoryReader.open(local)) {
        hits = new IndexSearcher(reader).count(new TermQuery(new Term("body", RandomIndexes.WORDS[0])));
      }
    }
    SnapshotManifest manifest = repo.readManifest("snap-0");
    List<MountSpec> specs = new ArrayList<>();
    specs.add(MountSpec.of("idx-0", "snap-0"));
    for (int i = 1; i < SNAPSHOTS; i++) {
      TestManifests.writeCopy(store, manifest, "snap-" + i);
      specs.add(MountSpec.of("idx-" + i, "snap-" + i));
    }
    specs.add(MountSpec.of("missing", "no-such-snapshot"));
    specs.add(MountSpec.of("idx-0", "snap-1")); // a name taken: specs mount at once, so either of the two may take it

    Path cacheDir = tmp.resolve("cache");
    List<String> lines;
    try (SharedRegionCache cache = SharedRegionCache.builder().path(cacheDir).size(16 << 20).build();
        Catalog catalog = Catalog.builder(cache).mountThreads(4).build()) {
      store.reset();
      MountAllResult result = catalog.mountAll(repo, specs);
      assertEquals(SNAPSHOTS, result.mounted().size());
      // one manifest request per spec; the taken name may be refused before its manifest is read
      assertTrue(store.requests() >= SNAPSHOTS + 1 && store.requests() <= SNAPSHOTS + 2, "requests: " + store.requests());
      assertEquals(2, result.failed().size(), result.failed().toString());
      assertTrue(result.failed().get("missing").contains("no-such-snapshot"), result.failed().toString());
      assertTrue(result.failed().get("idx-0").contains("mounted already"), result.failed().toString());
      assertEquals(SNAPSHOTS, catalog.stats().mounted());
      // one spec of the name mounts, the other is reported; mountAll does not promise which (the specs mount at once)
      List<String> mountedAsIdx0 = result.mounted().stream().filter(m -> m.name().equals("idx-0")).map(MountInfo::snapshot).toList();
      assertEquals(1, mountedAsIdx0.size(), result.mounted().toString());
      assertTrue(mountedAsIdx0.get(0).equals("snap-0") || mountedAsIdx0.get(0).equals("snap-1"), mountedAsIdx0.toString());
      assertEquals(mountedAsIdx0.get(0), catalog.info("idx-0").snapshot(), "the spec reported mounted is the one mounted");
      SearchResponse r = catalog.search(SearchRequest.builder(new TermQuery(new Term("body", RandomIndexes.WORDS[0])))
          .indices("idx-*").exactTotalHits(true).build());
      assertEquals(SNAPSHOTS * hits, r.totalHits().value());
      lines = catalog.mountSpecs().stream().map(MountSpec::toLine).toList();
    }
    Files.write(tmp.resolve("mounts"), lines);

    // a clean restart: the same specs mount again through the cache's record, without a request
    List<MountSpec> saved = Files.readAllLines(tmp.resolve("mounts")).stream().map(MountSpec::parseLine).toList();
    assertEquals(SNAPSHOTS, saved.size());
    try (SharedRegionCache cache = SharedRegionCache.builder().path(cacheDir).size(16 << 20).build();
        Catalog catalog = Catalog.builder(cache).build()) {
      store.reset();
      MountAllResult result = catalog.mountAll(repo, saved);
      assertEquals(SNAPSHOTS, result.mounted().size(), result.failed().toString());
      assertEquals(0, store.requests(), "re-mounting after a clean restart reads the manifests from the cache");
      SearchResponse r = catalog.search(SearchRequest.builder(new TermQuery(new Term("body", RandomIndexes.WORDS[0])))
          .indices("idx-*").exactTotalHits(true).build());
      assertEquals(SNAPSHOTS * hits, r.totalHits().value());
    }

    // from a cold cache, a saved manifest that is no longer the snapshot's fails that mount, naming it; mounted beside
    // a spec of another snapshot (idx-0 may have mounted snap-1, as idx-1 did: the same manifest blob, which the
    // cache would then know with two checksums at once, and refuse the second)
    ManifestRef ref = saved.get(0).manifest();
    MountSpec stale = new MountSpec("stale", ref.snapshot(),
        MountMode.SHARED_CACHE, new ManifestRef(ref.snapshot(), ref.blobName(), ref.length(), ref.footerChecksum() ^ 1, ref.crc32c()));
    MountSpec current = saved.stream().filter(s -> !s.snapshot().equals(ref.snapshot())).findFirst().orElseThrow();
    try (SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("cold")).size(16 << 20).build();
        Catalog catalog = Catalog.builder(cache).build()) {
      MountAllResult result = catalog.mountAll(repo, List.of(stale, current));
      assertEquals(1, result.mounted().size(), result.failed().toString());
      assertTrue(result.failed().get("stale").contains(ref.snapshot()), result.failed().toString());
    }
  }

  /**
   * A saved spec whose manifest is no longer the snapshot's fails its mount, and leaves the snapshot mountable: its
   * version of the manifest blob (same name, another checksum), which no one reads once that mount has failed, gives
   * way to the current one. (It was kept, and every mount of the snapshot in that process failed, naming the stale
   * checksum, until its slot was evicted.)
   */
  @Test
  void aStaleSavedSpecLeavesTheSnapshotMountable() throws IOException {
    SnapshotRepository repo = SnapshotRepository.open(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    List<MountSpec> saved;
    try (Directory local = FSDirectory.open(tmp.resolve("local"))) {
      RandomIndexes.build(local, new Random(5), 300, 1);
      repo.createSnapshot("s", local);
    }
    try (SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("cache-0")).size(16 << 20).build();
        Catalog catalog = Catalog.builder(cache).build()) {
      catalog.mount("x", repo, "s");
      saved = catalog.mountSpecs();
    }
    ManifestRef ref = saved.get(0).manifest();
    MountSpec stale = new MountSpec("stale", "s", MountMode.SHARED_CACHE,
        new ManifestRef("s", ref.blobName(), ref.length(), ref.footerChecksum() ^ 1, ref.crc32c()));
    try (SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(16 << 20).build();
        Catalog catalog = Catalog.builder(cache).build()) {
      MountAllResult failed = catalog.mountAll(repo, List.of(stale));
      assertTrue(failed.mounted().isEmpty() && failed.failed().get("stale").contains("no longer the one that was mounted"),
          failed.failed().toString());

      MountAllResult current = catalog.mountAll(repo, saved);
      assertEquals(1, current.mounted().size(), current.failed().toString());
      assertEquals(300, catalog.info("x").maxDoc());
      assertEquals(300, catalog.mount("y", repo, "s").maxDoc(), "and mounted afresh from the repository");
    }
    try (SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("cache-2")).size(16 << 20).build();
        Catalog catalog = Catalog.builder(cache).build()) {
      // both versions of the manifest read in one mountAll, in whichever order its threads come to them
      MountAllResult both = catalog.mountAll(repo, List.of(stale, saved.get(0)));
      assertEquals(List.of("x"), both.mounted().stream().map(MountInfo::name).toList(), both.failed().toString());
      assertTrue(both.failed().get("stale").contains("no longer the one that was mounted"), both.failed().toString());
      assertEquals(300, catalog.info("x").maxDoc());
    }
  }

  @Test
  void specLinesRoundTripAndBadOnesSayWhy() {
    MountSpec plain = MountSpec.of("logs-1", "logs-2024.02.01");
    assertEquals(plain, MountSpec.parseLine(plain.toLine()));
    MountSpec pinned = new MountSpec("a", "s", MountMode.FULL_COPY, new ManifestRef("s", "snapshots/s.manifest", 123,
        0xF00DCAFEBEEFL, 0x89ABCDEF));
    assertEquals(pinned, MountSpec.parseLine(pinned.toLine()));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> MountSpec.parseLine("a\tb")).getMessage().contains("fields"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> MountSpec.parseLine("a\tb\tFROZEN")).getMessage()
        .contains("FROZEN"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> MountSpec.parseLine("a\ts\tSHARED_CACHE\tblob\tten\t0\t0")).getMessage().contains("malformed"));
    assertThrows(IllegalArgumentException.class, () -> new MountSpec("a", "s", MountMode.SHARED_CACHE,
        new ManifestRef("other", "b", 1, 0, 0)));
  }
}
