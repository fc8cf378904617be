/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.StorePolicy;
import dev.permafrost.jmh.cache.AccessTrace;
import dev.permafrost.jmh.cache.PolicySimulator;
import dev.permafrost.jmh.cache.ProductPolicy;
import dev.permafrost.jmh.cache.TraceRecordingDirectory;
import dev.permafrost.jmh.store.BlobIndexes;
import dev.permafrost.jmh.store.LatencyModel;
import dev.permafrost.jmh.store.LatencyModelBlobStore;
import dev.permafrost.jmh.store.LocalIndexes;
import dev.permafrost.jmh.store.MountedIndices;
import dev.permafrost.jmh.store.RequestStats;
import dev.permafrost.jmh.store.WarmSets;
import dev.permafrost.jmh.workload.DashboardWorkload;
import dev.permafrost.jmh.workload.IndexSet;
import dev.permafrost.jmh.workload.Indices;
import dev.permafrost.jmh.workload.Workload;
import dev.permafrost.jmh.workload.Workloads;
import dev.permafrost.sample.AccessLogEvent;
import dev.permafrost.sample.AccessLogGenerator;
import dev.permafrost.sample.Dataset;
import dev.permafrost.sample.DatasetSpec;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.SharedRegionCache;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.MMapDirectory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks that the benchmarks' pieces run and give sane, consistent answers on a tiny data set. Asserts nothing
 * about speed.
 */
class BenchmarkSmokeTest {
  @TempDir static Path temp;
  static Dataset dataset;

  @BeforeAll
  static void generate() throws Exception {
    dataset = Dataset.getOrCreate(temp.resolve("data"), DatasetSpec.parse("tiny"));
  }

  @Test
  void generatorIsDeterministicAndRealistic() {
    List<AccessLogEvent> a = new AccessLogGenerator(7).day(LocalDate.of(2024, 3, 1), 20_000);
    List<AccessLogEvent> b = new AccessLogGenerator(7).day(LocalDate.of(2024, 3, 1), 20_000);
    assertEquals(a, b);
    long notFound = a.stream().filter(e -> e.status() == 404).count();
    long serverErrors = a.stream().filter(e -> e.status() >= 500).count();
    assertTrue(notFound > 600 && notFound < 1400, "404 share: " + notFound);
    assertTrue(serverErrors > 100 && serverErrors < 600, "5xx share: " + serverErrors);
    for (int i = 1; i < a.size(); i++) {
      assertTrue(a.get(i - 1).timestamp() <= a.get(i).timestamp(), "timestamps are in order");
    }
  }

  @Test
  void everyWorkloadGivesTheSameResultThroughBlobDirectoryAndMMapDirectory() throws Exception {
    try (LatencyModelBlobStore store = new LatencyModelBlobStore(StorePolicy.DEFAULT.apply(dataset.openStore()), LatencyModel.NONE);
        SharedRegionCache cache =
            BlobIndexes.cache(temp.resolve("cache-warm"), 2 * dataset.indexBytes(), BlobIndexes.regionSizeFor(dataset));
        Indices blob = BlobIndexes.open(dataset, SnapshotRepository.open(store), cache);
        Indices mmap = LocalIndexes.open(dataset, LocalIndexes.Kind.MMAP);
        Indices niofs = LocalIndexes.open(dataset, LocalIndexes.Kind.NIOFS)) {
      for (Workload w : Workloads.all(dataset.spec())) {
        Workload.Result expected = w.run(mmap);
        assertTrue(expected.hits() > 0, w.name() + " finds something");
        assertEquals(expected, w.run(blob), w.name() + " cold through BlobDirectory");
        assertEquals(expected, w.run(blob), w.name() + " warm through BlobDirectory");
        assertEquals(expected, w.run(niofs), w.name() + " on NIOFSDirectory");
      }
      assertEquals(2, Workloads.byName("needle", dataset.spec()).run(mmap).hits(), "one needle per day");
      DashboardWorkload.Result dashboard = (DashboardWorkload.Result) Workloads.byName("dashboard", dataset.spec()).run(mmap);
      assertEquals(10, dashboard.topCountries().size());
      assertEquals(dashboard.hits(), dashboard.histogram().values().stream().mapToLong(Long::longValue).sum());
    }
  }

  @Test
  void everyWorkloadGivesTheMMapAnswerThroughCachesOfEverySizeOfTheCurve() throws Exception {
    // SmallCacheBenchmark's cache shares; at this scale the smallest are floored at 64 KiB (four 16 KiB regions)
    double[] shares = {0.001, 0.005, 0.02, 0.05, 0.2, 1.0};
    List<Workload.Result> expected = new ArrayList<>();
    try (Indices mmap = LocalIndexes.open(dataset, LocalIndexes.Kind.MMAP)) {
      for (Workload w : Workloads.all(dataset.spec())) {
        expected.add(w.run(mmap));
      }
    }
    for (double share : shares) {
      long bytes = Math.max((long) (share * dataset.indexBytes()), 64 << 10);
      try (LatencyModelBlobStore store = new LatencyModelBlobStore(StorePolicy.DEFAULT.apply(dataset.openStore()), LatencyModel.NONE);
          SharedRegionCache cache = BlobIndexes.cache(temp.resolve("cache-curve-" + share), bytes, 16 << 10);
          Indices blob = MountedIndices.mount(SnapshotRepository.open(store), dataset.indexNames(), cache)) {
        int i = 0;
        for (Workload w : Workloads.all(dataset.spec())) {
          for (int run = 0; run < 3; run++) { // cold, then repeated through what the cache kept
            assertEquals(expected.get(i), w.run(blob), w.name() + " through a cache of " + bytes + " bytes, run " + run);
          }
          i++;
        }
      }
    }
  }

  @Test
  void coldRunThroughTheModelledStoreCountsRequestsBytesAndChains() throws Exception {
    Workload dashboard = Workloads.byName("dashboard", dataset.spec());
    Workload.Result expected;
    try (Indices mmap = LocalIndexes.open(dataset, LocalIndexes.Kind.MMAP)) {
      expected = dashboard.run(mmap);
    }
    try (LatencyModelBlobStore store = new LatencyModelBlobStore(StorePolicy.DEFAULT.apply(dataset.openStore()), LatencyModel.of(1, 1000));
        SharedRegionCache cache =
            BlobIndexes.cache(temp.resolve("cache-cold"), 2 * dataset.indexBytes(), BlobIndexes.regionSizeFor(dataset))) {
      try (Indices blob = BlobIndexes.open(dataset, SnapshotRepository.open(store), cache)) {
        store.stats().reset();
        assertEquals(expected, dashboard.run(blob));
      }
      RequestStats.Snapshot cold = store.stats().snapshot();
      assertTrue(cold.requests() > 0 && cold.bytesRead() > 0, cold.toString());
      assertTrue(cold.longestChain() >= 1 && cold.roundTripWaves() >= 1, cold.toString());
      assertTrue(cold.bytesRead() < dataset.indexBytes(), "a dashboard reads part of the data: " + cold);
    }
  }

  @Test
  void aWorkloadsWarmSetGivesTheSameAnswersForFewerColdRequests() throws Exception {
    try (LatencyModelBlobStore store = new LatencyModelBlobStore(StorePolicy.DEFAULT.apply(dataset.openStore()), LatencyModel.NONE);
        SharedRegionCache cache =
            BlobIndexes.cache(temp.resolve("cache-warm-set"), 2 * dataset.indexBytes(), BlobIndexes.regionSizeFor(dataset));
        Indices mmap = LocalIndexes.open(dataset, LocalIndexes.Kind.MMAP)) {
      SnapshotRepository repository = SnapshotRepository.open(store);
      for (Workload w : Workloads.all(dataset.spec())) {
        Workload.Result expected = w.run(mmap);
        long[] requests = new long[2];
        for (int warm = 0; warm < 2; warm++) {
          List<String> snapshots = WarmSets.snapshots(dataset, w, warm == 0 ? "none" : "workload");
          awaitNoFetch(cache); // what the last run asked for and did not wait for is sent before the reset
          cache.clear();
          try (Indices blob = MountedIndices.mount(repository, snapshots, cache)) {
            store.stats().reset();
            assertEquals(expected, w.run(blob), w.name() + " cold, warm set " + warm);
            awaitNoFetch(cache);
            requests[warm] = store.stats().snapshot().requests();
          }
        }
        assertTrue(requests[1] < requests[0], w.name() + ": " + requests[1] + " requests with its warm set, "
            + requests[0] + " without");
      }
    }
  }

  /** Waits until no fetch of {@code cache} is queued or running (a state: the bound only turns a hang into a failure). */
  private static void awaitNoFetch(SharedRegionCache cache) throws InterruptedException {
    for (long giveUp = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        cache.stats().fillsInFlight() > 0; ) {
      assertTrue(System.nanoTime() - giveUp < 0, "fetches still running after a minute: " + cache.stats());
      Thread.sleep(1);
    }
  }

  @Test
  void traceRecorderSeesTheWorkloadsReads() throws Exception {
    AccessTrace trace = new AccessTrace(BlobIndexes.regionSizeFor(dataset));
    List<Directory> dirs = new ArrayList<>();
    List<TraceRecordingDirectory> recorders = new ArrayList<>();
    for (String name : dataset.indexNames()) {
      TraceRecordingDirectory dir = new TraceRecordingDirectory(new MMapDirectory(dataset.indexPath(name)), name + "/");
      recorders.add(dir);
      dirs.add(dir);
    }
    try (IndexSet set = IndexSet.open(dirs, 1)) {
      recorders.forEach(r -> r.record(trace));
      Workloads.byName("dashboard", dataset.spec()).run(set);
    }
    assertTrue(trace.size() > 0);
    assertTrue(trace.distinctRegions() > 1 && trace.distinctRegions() <= trace.size());
  }

  @Test
  void theProductReplaysTracesWithoutDriftAndAsWellAsTheModelsWhenEverythingFits() throws Exception {
    long regionSize = BlobIndexes.regionSizeFor(dataset);
    Map<String, AccessTrace> perRun = new LinkedHashMap<>();
    PolicyReport.record(dataset, regionSize).forEach((k, v) -> perRun.put(k, v.firstTouches()));
    for (var e : PolicyReport.scenarios(perRun, regionSize).entrySet()) {
      AccessTrace trace = e.getValue();
      int everything = (int) trace.distinctRegions() + 1;
      // ProductPolicy throws on any drift between its counts and the cache's
      PolicySimulator.Outcome product = PolicySimulator.run(trace, ProductPolicy.factory(dataset, trace), everything);
      PolicySimulator.Outcome lru = PolicySimulator.run(trace, PolicySimulator.POLICIES.getFirst(), everything);
      assertEquals(trace.size(), product.accesses());
      // a cache that holds every region misses each at most once (the manifest serves some with no request at all)
      assertTrue(product.requests() <= trace.distinctRegions() && product.requests() > 0, e.getKey() + ": " + product);
      assertTrue(product.hits() >= lru.hits(), e.getKey() + ": " + product + " vs " + lru);
      int small = Math.max(2, everything / 20);
      PolicySimulator.Outcome tight = PolicySimulator.run(trace, ProductPolicy.factory(dataset, trace), small);
      assertTrue(tight.requests() >= product.requests(), e.getKey() + ": a smaller cache cannot miss less: " + tight);
    }
  }

  @Test
  void manyIndicesRunsColdAndGivesTheLocalAnswerWithItsLimit() throws Exception {
    String before = System.getProperty("permafrost.bench.data");
    System.setProperty("permafrost.bench.data", temp.resolve("many-data").toString());
    try {
      Dataset many = Dataset.getOrCreate(DatasetSpec.parse("12x300"));
      Workload.Result expected;
      try (Indices mmap = LocalIndexes.open(many, LocalIndexes.Kind.MMAP)) {
        expected = Workloads.byName("needle", many.spec()).run(mmap);
      }
      ManyIndicesBenchmark bench = new ManyIndicesBenchmark();
      bench.scale = "12x300";
      bench.workload = "needle";
      bench.searchThreads = 4;
      bench.ttfbMs = 1;
      bench.mbPerSec = 1000;
      bench.setUp();
      try {
        bench.mountCold();
        ManyIndicesBenchmark.Requests counts = new ManyIndicesBenchmark.Requests();
        assertEquals(expected, bench.search(counts));
        bench.unmount();
        assertTrue(counts.requests >= 12 && counts.roundTripWaves >= 1, "every index was read cold: " + counts.requests);
        assertTrue(counts.limitMs >= 0);
      } finally {
        bench.tearDown();
      }
    } finally {
      if (before == null) {
        System.clearProperty("permafrost.bench.data");
      } else {
        System.setProperty("permafrost.bench.data", before);
      }
    }
  }

  @Test
  void mountScaleReopensWarmIndicesWithoutARequest() throws Exception {
    String before = System.getProperty("permafrost.bench.data");
    System.setProperty("permafrost.bench.data", temp.resolve("mount-scale-data").toString());
    try {
      for (String cached : List.of("warm", "cold")) {
        MountScaleBenchmark bench = new MountScaleBenchmark();
        bench.count = 200;
        bench.ttfbMs = 0;
        bench.cached = cached;
        bench.setUp();
        try {
          MountScaleBenchmark.Counts counts = new MountScaleBenchmark.Counts();
          bench.mount(counts);
          assertEquals(200, counts.requests, "a mount reads its manifest and nothing else");
          bench.prepareReopen();
          assertTrue(bench.reopen(counts) > 0, "the searches find hits");
          assertEquals(100, counts.readerOpens, "every search reopened its reader");
          if (cached.equals("warm")) {
            assertEquals(0, counts.requests, "a warm reopen and search make no request");
          } else {
            assertTrue(counts.requests >= 100, "a cold reopen reads at least its manifest: " + counts.requests);
          }
        } finally {
          bench.tearDown();
        }
      }
    } finally {
      if (before == null) {
        System.clearProperty("permafrost.bench.data");
      } else {
        System.setProperty("permafrost.bench.data", before);
      }
    }
  }
}
