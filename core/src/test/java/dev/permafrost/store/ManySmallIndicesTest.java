/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.CountingBlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.snapshot.CachedManifests;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.ManifestRef;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.testutil.RandomIndexes;
import dev.permafrost.testutil.SearchOracle;
import dev.permafrost.testutil.Waits;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many small indices under default cache settings: a couple of hundred snapshots of a few hundred kilobytes, each of
 * a few dozen small files, mounted together with a cache four times their size. Once a first pass of searches has
 * fetched what they read, a second pass must be served from the cache alone.
 */
class ManySmallIndicesTest {
  private static final int INDICES = 200;
  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private final Random random = new Random(seed);
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : toClose.reversed()) {
      c.close();
    }
  }

  /** One small index: one or two segments of a couple of thousand documents, compound files or not. */
  private static Directory smallIndex(long indexSeed) throws IOException {
    Random r = new Random(indexSeed);
    Directory dir = new ByteBuffersDirectory();
    int docs = 1500 + r.nextInt(1500);
    IndexWriterConfig config = new IndexWriterConfig().setUseCompoundFile(r.nextInt(4) == 0)
        .setMaxBufferedDocs(docs / (1 + r.nextInt(2)) + 1).setMergePolicy(NoMergePolicy.INSTANCE);
    try (IndexWriter writer = new IndexWriter(dir, config)) {
      RandomIndexes.append(writer, r, 0, docs, 1);
    }
    return dir;
  }

  @Test
  void aWarmPassOverManySmallIndicesMakesNoStoreRequest() throws Exception {
    CountingBlobStore store = new CountingBlobStore(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    SnapshotRepository repo = SnapshotRepository.open(store);
    SearchOracle oracle = new SearchOracle(random, 4);
    List<ManifestRef> refs = new ArrayList<>();
    List<List<String>> expected = new ArrayList<>();
    long dataBytes = 0;
    int blobs = 0;
    ExecutorService builders = Executors.newFixedThreadPool(2);
    try {
      List<Future<Directory>> built = new ArrayList<>();
      for (int i = 0; i < INDICES; i++) {
        long indexSeed = random.nextLong();
        built.add(builders.submit(() -> smallIndex(indexSeed)));
      }
      for (int i = 0; i < INDICES; i++) {
        try (Directory local = built.get(i).get(); DirectoryReader reader = DirectoryReader.open(local)) {
          repo.createSnapshot("small-" + i, local);
          expected.add(oracle.answers(new IndexSearcher(reader)));
        }
      }
    } finally {
      builders.shutdownNow();
    }
    for (int i = 0; i < INDICES; i++) {
      SnapshotManifest manifest = repo.readManifest("small-" + i);
      refs.add(manifest.ref());
      for (FileEntry f : manifest.files()) {
        dataBytes += f.length();
        blobs += f.blobName() != null ? 1 : 0;
      }
    }
    SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(4 * dataBytes).build();
    toClose.add(cache);
    assertTrue(blobs > 2 * INDICES, "seed " + seed + ": many small blobs, not " + blobs);

    for (int pass = 0; pass < 2; pass++) {
      Waits.awaitNoFetch(cache); // what the last pass asked for and did not wait for is sent before the reset
      store.reset();
      long before = cache.stats().total().storeRequests();
      for (int i = 0; i < INDICES; i++) {
        SnapshotManifest manifest = CachedManifests.read(repo, refs.get(i), cache);
        try (BlobDirectory dir = BlobDirectory.open(repo, manifest, cache, "small-" + i);
            DirectoryReader reader = DirectoryReader.open(dir)) {
          assertEquals(expected.get(i), oracle.answers(new IndexSearcher(reader)), "seed " + seed + ", index " + i);
        }
      }
      Waits.awaitNoFetch(cache);
      if (pass == 1) {
        CacheStats stats = cache.stats();
        assertEquals(0, store.requests(), "seed " + seed + ": the warm pass made store requests; " + stats.total()
            + ", " + stats.regionsInUse() + " regions in use of " + stats.regions() + ", " + stats.evictions() + " evictions");
        assertEquals(before, stats.total().storeRequests());
        assertEquals(0, stats.evictions(), "everything fits");
      } else {
        assertTrue(store.requests() > INDICES, "the first pass fetches");
      }
    }
    assertFalse(cache.pool.thrashWarned());
    assertTrue(cache.pool.checkInvariants());
  }
}
