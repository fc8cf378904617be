/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.SharedRegionCache;
import dev.permafrost.testutil.RandomIndexes;
import dev.permafrost.testutil.SearchOracle;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many threads acquire, search and release random indices while others mount and unmount, with a pool far smaller
 * than the indices and an idle time-out that keeps closing readers: no search fails because of a close, every answer
 * is the local index's, and every reader is closed at the end.
 */
class CatalogConcurrencyTest {
  @TempDir Path tmp;

  @Test
  void searchesNeverFailBecauseOfConcurrentClosesMountsOrUnmounts() throws Exception {
    long seed = Long.getLong("tests.seed", System.nanoTime());
    Random random = new Random(seed);
    SnapshotRepository repo = SnapshotRepository.open(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    SearchOracle oracle = new SearchOracle(random, 4);
    int stable = 6;
    List<List<String>> expected = new ArrayList<>();
    for (int i = 0; i < stable + 2; i++) {
      try (Directory local = FSDirectory.open(tmp.resolve("local-" + i))) {
        RandomIndexes.build(local, random, 400 + random.nextInt(400), 2);
        repo.createSnapshot("snap-" + i, local);
        try (DirectoryReader reader = DirectoryReader.open(local)) {
          expected.add(oracle.answers(new IndexSearcher(reader)));
        }
      }
    }
    try (SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(16 << 20)
            .regionSize(256 << 10).build();
        Catalog catalog = Catalog.builder(cache).maxOpenReaders(3).idleTimeout(Duration.ofMillis(15)).build()) {
      for (int i = 0; i < stable; i++) {
        catalog.mount("idx-" + i, repo, "snap-" + i);
      }
      AtomicBoolean stop = new AtomicBoolean();
      AtomicInteger searches = new AtomicInteger();
      AtomicInteger churn = new AtomicInteger();
      ExecutorService pool = Executors.newFixedThreadPool(8);
      try {
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
          long threadSeed = random.nextLong();
          futures.add(pool.submit(() -> {
            Random r = new Random(threadSeed);
            for (int n = 0; n < 80; n++) {
              int i = r.nextInt(stable);
              int q = r.nextInt(oracle.size());
              try (Lease lease = catalog.acquire("idx-" + i)) {
                assertEquals(expected.get(i).get(q), oracle.answer(lease.searcher(), q), "seed " + seed + " idx-" + i);
              }
              searches.incrementAndGet();
            }
            return null;
          }));
        }
        for (int t = 0; t < 2; t++) {
          int snapshot = stable + t;
          futures.add(pool.submit(() -> {
            for (int n = 0; !stop.get(); n++) {
              String name = "churn-" + snapshot + "-" + n;
              catalog.mount(name, repo, "snap-" + snapshot);
              try (Lease lease = catalog.acquire(name)) {
                assertEquals(expected.get(snapshot).get(0), oracle.answer(lease.searcher(), 0), "seed " + seed);
              }
              catalog.unmount(name);
              churn.incrementAndGet();
            }
            return null;
          }));
        }
        assertTimeoutPreemptively(Duration.ofMinutes(3), () -> {
          for (int k = 0; k < 6; k++) {
            futures.get(k).get();
          }
          stop.set(true);
          for (Future<?> f : futures) {
            f.get();
          }
        }, "seed " + seed);
      } finally {
        stop.set(true);
        pool.shutdownNow();
      }
      assertEquals(6 * 80, searches.get());
      assertTrue(churn.get() > 0, "indices were mounted and unmounted meanwhile");
      assertEquals(stable, catalog.stats().mounted(), "the churned indices are all unmounted");
      assertTrue(catalog.stats().readersClosedForRoom() + catalog.stats().readersClosedIdle() > 0, String.valueOf(catalog.stats()));
      catalog.close();
      CatalogStats after = catalog.stats();
      assertEquals(0, after.open(), "every reader is closed: " + after);
      assertEquals(0, after.opening(), "no reader is left opening: " + after);
      assertEquals(after.readerOpens(), after.readerCloses(), "every reader opened was closed: " + after);
      assertEquals(0, after.readerHeapBytes(), String.valueOf(after));
    }
  }
}
