/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.blob.FilterBlobStore;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.snapshot.TestManifests;
import dev.permafrost.store.SharedRegionCache;
import dev.permafrost.testutil.RandomIndexes;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
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
 * One search over far more indices than may be open at once, 64 of them searched at a time: readers are closed for
 * room while others are released, and every index is counted exactly once. (Room-making once sorted live last-use
 * times that moved under the sort, and failed with "Comparison method violates its general contract".)
 */
class ManyIndicesSearchTest {
  private static final int INDICES = 400;
  @TempDir Path tmp;

  @Test
  void aSearchOverManyMoreIndicesThanOpenReadersCountsEachOnce() throws IOException {
    FileSystemBlobStore store = FileSystemBlobStore.open(tmp.resolve("repo"), false);
    // a millisecond per ranged read, so that many searches wait at once, as against object storage
    SnapshotRepository slow = SnapshotRepository.open(new FilterBlobStore(store) {
      @Override
      public InputStream read(String name, long offset, long length) throws IOException {
        try {
          Thread.sleep(1);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException();
        }
        return super.read(name, offset, length);
      }
    });
    SnapshotRepository repo = SnapshotRepository.open(store);
    TermQuery query = new TermQuery(new Term("body", RandomIndexes.WORDS[0]));
    long each;
    try (Directory local = FSDirectory.open(tmp.resolve("local"))) {
      RandomIndexes.build(local, new Random(5), 200, 1);
      repo.createSnapshot("snap-0", local);
      try (DirectoryReader reader = DirectoryReader.open(local)) {
        each = new IndexSearcher(reader).count(query);
      }
    }
    SnapshotManifest manifest = repo.readManifest("snap-0");
    List<MountSpec> specs = new ArrayList<>();
    specs.add(MountSpec.of("idx-0", "snap-0"));
    for (int i = 1; i < INDICES; i++) {
      TestManifests.writeCopy(store, manifest, "snap-" + i);
      specs.add(MountSpec.of("idx-" + i, "snap-" + i));
    }
    try (SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(64 << 20).build();
        Catalog catalog = Catalog.builder(cache).maxOpenReaders(48).searchThreads(64).build()) {
      cache.clear();
      assertTrue(catalog.mountAll(slow, specs).failed().isEmpty());
      for (int round = 0; round < 6; round++) {
        SearchResponse r = catalog.search(SearchRequest.builder(query).indices("idx-*").exactTotalHits(true).build());
        assertTrue(r.failed().isEmpty(), r.failed().toString());
        assertEquals(INDICES, r.searched().size());
        assertEquals(INDICES * each, r.totalHits().value(), "round " + round);
      }
      assertTrue(catalog.stats().readersClosedForRoom() > 0, "readers were closed for room: " + catalog.stats());
    }
  }
}
