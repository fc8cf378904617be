/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.SharedRegionCache;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.search.MatchAllDocsQuery;

/**
 * Run in a JVM of its own, with a small heap, by {@link MountScaleTest}: mounts every snapshot {@code snap-0} ..
 * {@code snap-(n-1)} of the repository at {@code args[0]} (cache in {@code args[1]}), measures the heap each mounted,
 * closed index holds, then searches a random sample of them from several threads with a small bound on open readers,
 * checking every count and that the bound holds throughout. Prints {@code HEAP_PER_MOUNT=<bytes>} and
 * {@code MAX_OPEN=<readers>}; exits 0 when all is well, 1 (with the failure) otherwise.
 */
public final class MountScaleProbe {
  private MountScaleProbe() {}

  private static long usedHeapAfterGc() throws InterruptedException {
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 4; i++) {
      System.gc();
      Thread.sleep(50);
      used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    }
    return used;
  }

  public static void main(String[] args) throws Exception {
    try {
      run(Path.of(args[0]), Path.of(args[1]), Integer.parseInt(args[2]), Long.parseLong(args[3]));
      System.exit(0);
    } catch (Throwable t) {
      t.printStackTrace(System.out);
      System.exit(1);
    }
  }

  static void run(Path repository, Path cacheDir, int count, long expectedDocs) throws Exception {
    SnapshotRepository repo = SnapshotRepository.open(FileSystemBlobStore.open(repository, false));
    int maxOpen = 20;
    try (SharedRegionCache cache = SharedRegionCache.builder().path(cacheDir).size("64mb").build();
        Catalog catalog = Catalog.builder(cache).maxOpenReaders(maxOpen).idleTimeout(Duration.ofSeconds(1)).build()) {
      long before = usedHeapAfterGc();
      List<MountSpec> specs = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        specs.add(MountSpec.of("index-" + i, "snap-" + i));
      }
      long start = System.nanoTime();
      MountAllResult mounted = catalog.mountAll(repo, specs);
      long mountNanos = System.nanoTime() - start;
      if (!mounted.failed().isEmpty()) {
        throw new AssertionError(mounted.failed().size() + " mounts failed, e.g. " + mounted.failed().entrySet().iterator().next());
      }
      specs = null;
      mounted = null;
      long after = usedHeapAfterGc();
      System.out.println("HEAP_PER_MOUNT=" + (after - before) / count);
      System.out.println("MOUNT_MILLIS_PER_1000=" + mountNanos / 1_000_000 * 1000 / count);
      if (catalog.stats().mounted() != count || catalog.stats().open() != 0) {
        throw new AssertionError("expected " + count + " mounted and none open: " + catalog.stats());
      }
      AtomicInteger maxSeenOpen = new AtomicInteger();
      ExecutorService pool = Executors.newFixedThreadPool(6);
      try {
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
          long seed = 31L * t;
          futures.add(pool.submit(() -> {
            Random r = new Random(seed);
            for (int n = 0; n < 60; n++) {
              String name = "index-" + r.nextInt(count);
              try (Lease lease = catalog.acquire(name)) {
                int hits = lease.searcher().count(new MatchAllDocsQuery());
                if (hits != expectedDocs) {
                  throw new AssertionError(name + " counted " + hits + " documents, not " + expectedDocs);
                }
                maxSeenOpen.accumulateAndGet(catalog.stats().open(), Math::max);
              }
            }
            return null;
          }));
        }
        for (Future<?> f : futures) {
          f.get();
        }
      } finally {
        pool.shutdownNow();
      }
      System.out.println("MAX_OPEN=" + maxSeenOpen.get());
      if (maxSeenOpen.get() > maxOpen) {
        throw new AssertionError(maxSeenOpen.get() + " readers were open, over the bound of " + maxOpen);
      }
      SearchResponse all = catalog.search(SearchRequest.builder(new MatchAllDocsQuery()).indices("index-99*").size(5).build());
      long expectedIndices = catalog.list("index-99*").size();
      if (all.searched().size() != expectedIndices || all.totalHits().value() != expectedIndices * expectedDocs) {
        throw new AssertionError("a search over " + expectedIndices + " indices found " + all.totalHits() + " in "
            + all.searched().size());
      }
      System.out.println("SEARCHED=" + all.searched().size() + " OPENS=" + catalog.stats().readerOpens());
    }
  }
}
