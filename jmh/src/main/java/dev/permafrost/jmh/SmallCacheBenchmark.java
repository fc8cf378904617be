/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh;

import dev.permafrost.blob.StorePolicy;
import dev.permafrost.sample.Dataset;
import dev.permafrost.jmh.store.BlobIndexes;
import dev.permafrost.jmh.store.MountedIndices;
import dev.permafrost.jmh.store.WarmSets;
import dev.permafrost.jmh.store.LatencyModel;
import dev.permafrost.jmh.store.LatencyModelBlobStore;
import dev.permafrost.jmh.workload.Workload;
import dev.permafrost.jmh.workload.Workloads;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.CacheStats;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The dashboard repeated with a cache far smaller than the data ({@code cacheShare} of it: 0.5% and 5%), over
 * the latency-modelled store: the time of a repeat and the cache's hit ratio during it. Compare the time with
 * {@link ColdSearchBenchmark}'s dashboard (Elasticsearch reports a repeat at 0.5% costing about 70% of cold).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-Xmx2g"})
@Warmup(iterations = 2)
@Measurement(iterations = 5)
public class SmallCacheBenchmark {
  @Param({"smoke"})
  public String scale;

  @Param({"dashboard"})
  public String workload;

  @Param({"0.005", "0.05"})
  public double cacheShare;

  @Param({"30"})
  public double ttfbMs;

  @Param({"80"})
  public double mbPerSec;

  /**
   * The snapshots' warm set: {@code none}, {@code workload} (the workload's own searches) or {@code sibling} (the
   * same kind of search with other parameters); see {@link WarmSets}.
   */
  @Param({"none"})
  public String warmSet;

  /**
   * The cache's region size: {@code auto} ({@link BlobIndexes#regionSizeFor}: about 1/2048 of the data),
   * {@code default} (the cache's own default for its size) or a size.
   */
  @Param({"default"})
  public String regionSize;

  private Workload work;
  private LatencyModelBlobStore store;
  private SharedRegionCache cache;
  private Path cacheDir;
  private MountedIndices indexes;
  private CacheStats.Counts before;

  /**
   * Per-invocation results besides time: hit ratio in percent (direct reads count as misses), requests, bytes
   * fetched, and round-trip waves (the longest chain of dependent requests, as {@link ColdSearchBenchmark} counts).
   */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Counts {
    public double hitRatioPercent;
    public long requests;
    public long bytesFetched;
    public long roundTripWaves;
    /** Waves by dependency, as {@link ColdSearchBenchmark.Requests#dependencyWaves} counts them. */
    public long dependencyWaves;
  }

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    Dataset dataset = BenchmarkData.dataset(scale);
    work = Workloads.byName(workload, dataset.spec());
    store = new LatencyModelBlobStore(StorePolicy.DEFAULT.apply(dataset.openStore()), LatencyModel.of(ttfbMs, mbPerSec));
    cacheDir = BenchmarkData.scratch("small-cache");
    long region = BlobIndexes.regionSize(regionSize, dataset);
    cache = BlobIndexes.cache(cacheDir, (long) (cacheShare * dataset.indexBytes()), region);
    System.out.println("# cache: " + cache.sizeInBytes() + " bytes, regions of " + (region == 0 ? "the default" : region));
    indexes = MountedIndices.mount(SnapshotRepository.open(store), WarmSets.snapshots(dataset, work, warmSet), cache);
    work.run(indexes); // the first, cold run
  }

  @Setup(Level.Invocation)
  public void mark() {
    before = cache.stats().total();
    store.stats().reset();
  }

  @Benchmark
  public Workload.Result repeat(Counts counts) throws IOException {
    Workload.Result result = work.run(indexes);
    CacheStats.Counts after = cache.stats().total();
    long hits = after.hits() - before.hits();
    // Reads the cache did not admit go directly to the store: they are misses too.
    long misses = after.misses() - before.misses() + after.directReads() - before.directReads();
    counts.hitRatioPercent = hits + misses == 0 ? 0 : 100.0 * hits / (hits + misses);
    counts.requests = store.stats().snapshot().requests();
    counts.bytesFetched = store.stats().snapshot().bytesRead();
    counts.roundTripWaves = store.stats().snapshot().roundTripWaves();
    counts.dependencyWaves = indexes.lastCost().waves();
    return result;
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    System.out.println("# cache at the end: " + cache.stats().total() + ", evictions " + cache.stats().evictions());
    indexes.close();
    cache.close();
    store.close();
    BenchmarkData.delete(cacheDir);
  }
}
