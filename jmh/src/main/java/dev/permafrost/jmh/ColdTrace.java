/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh;

import dev.permafrost.blob.Durations;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.jmh.store.BlobIndexes;
import dev.permafrost.jmh.store.LatencyModel;
import dev.permafrost.jmh.store.LatencyModelBlobStore;
import dev.permafrost.jmh.workload.Indices;
import dev.permafrost.jmh.workload.Workload;
import dev.permafrost.jmh.workload.Workloads;
import dev.permafrost.sample.Dataset;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.SharedRegionCache;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Command line: runs one workload cold over the modelled store, as {@link ColdSearchBenchmark} does, and prints
 * every store request in the order issued, with its wave, thread, blob and range: where a cold search's round
 * trips go.
 *
 * <pre>
 * java -cp jmh/target/benchmarks.jar dev.permafrost.jmh.ColdTrace [scale] [workload] [ttfbMs] [cacheShare] [regionSize]
 * </pre>
 *
 * With a {@code cacheShare} (e.g. 0.005), the cache holds that share of the data and the traced run is a repeat,
 * as {@link SmallCacheBenchmark} measures: the workload runs twice on the same mounts, then once traced.
 * {@code regionSize}: {@code auto} (the default, 1/2048 of the data), {@code default} (the cache's own) or a size.
 */
public final class ColdTrace {
  private ColdTrace() {}

  public static void main(String[] args) throws Exception {
    String scale = args.length > 0 ? args[0] : "smoke";
    String name = args.length > 1 ? args[1] : "needle";
    double ttfb = args.length > 2 ? Double.parseDouble(args[2]) : 30;
    double share = args.length > 3 ? Double.parseDouble(args[3]) : 0;
    Dataset dataset = BenchmarkData.dataset(scale);
    long regionSize = BlobIndexes.regionSize(args.length > 4 ? args[4] : "auto", dataset);
    Workload workload = Workloads.byName(name, dataset.spec());
    Path cacheDir = BenchmarkData.scratch("trace-cache");
    try (LatencyModelBlobStore store = new LatencyModelBlobStore(StorePolicy.DEFAULT.apply(dataset.openStore()),
            LatencyModel.of(ttfb, 80));
        SharedRegionCache cache = BlobIndexes.cache(cacheDir,
            share > 0 ? (long) (share * dataset.indexBytes()) : 2 * dataset.indexBytes() + (64 << 20), regionSize)) {
      for (int run = 0; run < 2; run++) { // the first run warms the JVM, the second is traced
        cache.clear();
        try (Indices indices = BlobIndexes.open(dataset, SnapshotRepository.open(store), cache)) {
          if (share > 0) {
            workload.run(indices); // cold
            workload.run(indices); // a first repeat: what the cache keeps has settled
          }
          List<String> lines = Collections.synchronizedList(new ArrayList<>());
          store.stats().reset();
          store.trace(run == 1 ? lines::add : null);
          long start = System.nanoTime();
          Workload.Result result = workload.run(indices);
          long nanos = System.nanoTime() - start;
          store.trace(null);
          if (run == 1) {
            Map<String, String> files = RepeatTrace.fileNames(dataset);
            for (String line : lines) {
              for (var e : files.entrySet()) {
                line = line.replace(e.getKey(), e.getValue());
              }
              System.out.println(line);
            }
            System.out.println(name + ": " + result.hits() + " hits in " + Durations.formatNanos(nanos) + "; "
                + store.stats().snapshot());
          }
        }
      }
    } finally {
      BenchmarkData.delete(cacheDir);
    }
  }
}
