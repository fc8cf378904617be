/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.FaultInjectingBlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.testutil.RandomIndexes;
import dev.permafrost.testutil.SearchOracle;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many threads search several mounted indices through a cache far smaller than the data while the store fails,
 * cuts, stalls and damages responses at random. Every search is right or fails with a reported error; afterwards
 * everything is right again, the cache file kept its size, and no stream, fill or fill thread is left behind.
 */
class FaultStressTest {
  @TempDir Path tmp;

  private static long openFileDescriptors() throws IOException {
    try (var fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.count();
    }
  }

  private static boolean fillThreadsAlive() {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.isAlive() && (t.getName().startsWith("permafrost-cache-fill") || t.getName().startsWith("permafrost-cache-table")));
  }

  @Test
  void searchesUnderRandomFaultsAreRightOrFailClearlyAndLeaveNothingBehind() throws Exception {
    long seed = Long.getLong("tests.seed", System.nanoTime());
    Random random = new Random(seed);
    int indices = 3;
    List<Directory> locals = new ArrayList<>();
    FileSystemBlobStore fs = FileSystemBlobStore.open(tmp.resolve("repo"), false);
    SnapshotRepository writer = SnapshotRepository.open(fs);
    SearchOracle oracle = new SearchOracle(random, 16);
    List<List<String>> expected = new ArrayList<>();
    for (int i = 0; i < indices; i++) {
      Directory local = FSDirectory.open(tmp.resolve("local-" + i));
      RandomIndexes.build(local, random, 2500 + random.nextInt(2000), 2);
      writer.createSnapshot("index-" + i, local);
      try (DirectoryReader reader = DirectoryReader.open(local)) {
        expected.add(oracle.answers(new IndexSearcher(reader)));
      }
      locals.add(local);
    }
    long fdsBefore = openFileDescriptors();

    FaultInjectingBlobStore faulty = new FaultInjectingBlobStore(fs, seed).targets(n -> n.startsWith("blobs/"))
        .failRate(0.15).cutRate(0.1).flipRate(0.1).stallRate(0.02).hangRate(0.02);
    SnapshotRepository repo = SnapshotRepository.open(faulty, StorePolicy.builder().maxRetries(1)
        .retryDelay(Duration.ofMillis(1)).retryMaxDelay(Duration.ofMillis(10)).retryTimeLimit(Duration.ofSeconds(2))
        .requestTimeout(Duration.ofMillis(300)).minReadThroughput(64 << 20).build());
    SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(512 << 10).regionSize(32 << 10)
        .tailRegionSize(8 << 10).fetchThreads(4).build();
    List<BlobDirectory> dirs = new ArrayList<>();
    List<DirectoryReader> readers = new ArrayList<>();
    AtomicInteger right = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    try {
      for (int i = 0; i < indices; i++) {
        BlobDirectory dir = BlobDirectory.open(repo, "index-" + i, cache);
        dirs.add(dir);
        readers.add(DirectoryReader.open(dir));
      }
      ExecutorService pool = Executors.newFixedThreadPool(8);
      try {
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
          long threadSeed = random.nextLong();
          futures.add(pool.submit(() -> {
            Random r = new Random(threadSeed);
            for (int n = 0; n < 40; n++) {
              int index = r.nextInt(indices);
              int query = r.nextInt(oracle.size());
              IndexSearcher searcher = new IndexSearcher(readers.get(index));
              try {
                assertEquals(expected.get(index).get(query), oracle.answer(searcher, query),
                    "seed " + seed + ": a wrong answer from index-" + index + " to " + oracle.describe(query));
                right.incrementAndGet();
              } catch (IOException | RuntimeException e) {
                // Lucene wraps some read failures (DirectReader's, for one) in a RuntimeException
                assertTrue(SearchOracle.ioFailure(e) != null, "seed " + seed + ": not a read failure: " + e);
                String message = String.valueOf(e.getMessage());
                assertTrue(message.contains("blobs/") || message.contains(fs.describe()),
                    "seed " + seed + ": a failure must name what failed: " + e);
                failed.incrementAndGet();
              }
              if (r.nextInt(20) == 0) {
                cache.clear();
              }
            }
            return null;
          }));
        }
        assertTimeoutPreemptively(Duration.ofMinutes(4), () -> {
          for (Future<?> f : futures) {
            f.get();
          }
        }, "seed " + seed + ": the searches must end, faults or not");
      } finally {
        pool.shutdownNow();
      }
      assertTrue(right.get() > 0, "seed " + seed + ": some searches must succeed");
      assertTrue(failed.get() > 0, "seed " + seed + ": with these fault rates some searches must fail, and report it");
      assertTrue(faulty.failures.get() + faulty.cuts.get() + faulty.flips.get() + faulty.stalls.get() + faulty.hangs.get() > 10,
          "seed " + seed + ": faults must have been injected");
      assertEquals(cache.sizeInBytes(), Files.size(cache.file()), "the cache file stays at its bound");

      faulty.heal();
      for (int i = 0; i < indices; i++) {
        assertEquals(expected.get(i), oracle.answers(new IndexSearcher(readers.get(i))), "seed " + seed + ": index-" + i);
      }
      for (int i = 0; i < 500 && cache.stats().fillsInFlight() > 0; i++) {
        Thread.sleep(10);
      }
      assertEquals(0, cache.stats().fillsInFlight(), "no fill is left running");
    } finally {
      faulty.heal();
      for (DirectoryReader r : readers) {
        r.close();
      }
      for (BlobDirectory d : dirs) {
        d.close();
      }
      cache.close();
    }
    for (int i = 0; i < 500 && (faulty.openStreams.get() > 0 || fillThreadsAlive()); i++) {
      Thread.sleep(10);
    }
    assertEquals(0, faulty.openStreams.get(), "seed " + seed + ": every response stream was closed");
    assertTrue(!fillThreadsAlive(), "no fill or table thread outlives the cache");
    long fdsAfter = openFileDescriptors();
    assertTrue(fdsAfter <= fdsBefore + 2, "file handles leaked: " + fdsBefore + " before, " + fdsAfter + " after");
    for (Directory local : locals) {
      local.close();
    }
    System.out.println("seed " + seed + ": " + right + " searches right, " + failed + " failed with a reported error; "
        + faulty.failures + " failures, " + faulty.cuts + " cuts, " + faulty.flips + " flips, " + faulty.stalls
        + " stalls, " + faulty.hangs + " hangs injected");
  }
}
