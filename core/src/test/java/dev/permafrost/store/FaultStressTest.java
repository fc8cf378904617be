/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static dev.permafrost.testutil.Waits.await;
import static dev.permafrost.testutil.Waits.awaitNoFetch;
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
 * everything is right again, a search that meets a fault placed on purpose gets past it, the cache file kept its size,
 * and no call, stream, open file, fill or fill thread is left behind.
 */
class FaultStressTest {
  @TempDir Path tmp;

  /**
   * The files under {@code dir} this process holds open: the JVM's own (a jar it opens to load a class, say) do not
   * count, so no margin is needed.
   */
  private static List<String> openFilesUnder(Path dir) throws IOException {
    String prefix = dir.toRealPath().toString();
    List<String> open = new ArrayList<>();
    try (var fds = Files.list(Path.of("/proc/self/fd"))) {
      for (Path fd : (Iterable<Path>) fds::iterator) {
        try {
          String target = Files.readSymbolicLink(fd).toString();
          if (target.startsWith(prefix)) {
            open.add(target);
          }
        } catch (IOException e) {
          // closed since it was listed (the listing's own descriptor, for one)
        }
      }
    }
    return open;
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
    List<String> filesBefore = openFilesUnder(tmp);

    FaultInjectingBlobStore faulty = new FaultInjectingBlobStore(fs, seed).targets(n -> n.startsWith("blobs/"))
        .failRate(0.15).cutRate(0.1).flipRate(0.1).stallRate(0.02).hangRate(0.02);
    // a request here reads at most a region (32 KB) of a local file: well under 100 ms even on a slow, busy 2-core
    // machine, so a 1 s time-out (and a retry after it, within the 2 s retry limit) only ends the requests stalled on
    // purpose, each of which costs the test that second; a healthy search never depends on it
    SnapshotRepository repo = SnapshotRepository.open(faulty, StorePolicy.builder().maxRetries(1)
        .retryDelay(Duration.ofMillis(1)).retryMaxDelay(Duration.ofMillis(10)).retryTimeLimit(Duration.ofSeconds(2))
        .requestTimeout(Duration.ofSeconds(1)).minReadThroughput(64 << 20).build());
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
      assertTrue(failed.get() > 0, "seed " + seed + ": with these fault rates some searches must fail, and report it");
      assertTrue(faulty.failures.get() + faulty.cuts.get() + faulty.flips.get() + faulty.stalls.get() + faulty.hangs.get() > 10,
          "seed " + seed + ": faults must have been injected");
      assertEquals(cache.sizeInBytes(), Files.size(cache.file()), "the cache file stays at its bound");

      faulty.heal();
      for (int i = 0; i < indices; i++) {
        assertEquals(expected.get(i), oracle.answers(new IndexSearcher(readers.get(i))), "seed " + seed + ": index-" + i);
      }
      // and a search that meets a fault recovers from it, whatever share of the searches above did: one request
      // fails on purpose (the searches just above succeeded, so the store's retry budget has room for its retry)
      awaitNoFetch(cache);
      cache.clear();
      long failuresBefore = faulty.failures.get();
      faulty.failNext(1);
      assertEquals(expected.get(0), oracle.answers(new IndexSearcher(readers.get(0))), "seed " + seed + ": index-0");
      awaitNoFetch(cache); // "no fill is left running"
      assertEquals(failuresBefore + 1, faulty.failures.get(), "seed " + seed + ": the search met the failure and got past it");
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
    // requests stalled on purpose were abandoned at their deadline and go on once healed: each opens its file then,
    // and its stream is closed by the deadline's clean-up
    await("every call to the store to return and every response stream to be closed",
        () -> faulty.pendingCalls.get() == 0 && faulty.openStreams.get() == 0);
    await("the fill and table threads to end with the cache", () -> !fillThreadsAlive());
    assertEquals(filesBefore.stream().sorted().toList(), openFilesUnder(tmp).stream().sorted().toList(),
        "seed " + seed + ": files left open");
    for (Directory local : locals) {
      local.close();
    }
    System.out.println("seed " + seed + ": " + right + " searches right, " + failed + " failed with a reported error; "
        + faulty.failures + " failures, " + faulty.cuts + " cuts, " + faulty.flips + " flips, " + faulty.stalls
        + " stalls, " + faulty.hangs + " hangs injected");
  }
}
