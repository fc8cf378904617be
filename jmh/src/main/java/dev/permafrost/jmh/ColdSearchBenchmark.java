/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.sample.Dataset;
import dev.permafrost.jmh.store.BenchStores;
import dev.permafrost.jmh.store.BlobIndexes;
import dev.permafrost.jmh.store.LatencyModel;
import dev.permafrost.jmh.store.LatencyModelBlobStore;
import dev.permafrost.jmh.store.MountedIndices;
import dev.permafrost.jmh.store.RequestStats;
import dev.permafrost.jmh.store.WarmSets;
import dev.permafrost.jmh.workload.Indices;
import dev.permafrost.jmh.workload.Workload;
import dev.permafrost.jmh.workload.Workloads;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
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
 * Each workload on a cold cache: before every invocation the cache is emptied and the snapshots are mounted
 * again (mounting is not timed). Reads go through a {@link LatencyModelBlobStore} that models object storage
 * ({@code store=fs}: the filesystem repository with {@code ttfbMs} to first byte and {@code mbPerSec} per stream)
 * or that only counts ({@code store=s3}: a MinIO copy, see {@link BenchStores}). Besides the wall time, the
 * secondary results give per invocation the blob requests, bytes fetched, and the longest chain of dependent
 * requests, per thread and across threads.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-Xmx2g"})
@Warmup(iterations = 2)
@Measurement(iterations = 5)
public class ColdSearchBenchmark {
  @Param({"smoke"})
  public String scale;

  @Param({"needle", "dashboard", "discover"})
  public String workload;

  @Param({"fs"})
  public String store;

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
  @Param({"auto"})
  public String regionSize;

  private Dataset dataset;
  private List<String> snapshots;
  private Workload work;
  private LatencyModelBlobStore modelled;
  private SnapshotRepository repository;
  private SharedRegionCache cache;
  private Path cacheDir;
  private Indices indexes;

  /** Per-invocation counts of the blob store, reported by JMH next to the time. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Requests {
    public long requests;
    public long bytesFetched;
    public long chainPerThread;
    public long roundTripWaves;
    /**
     * Waves by dependency (the catalog's {@code SearchCost.waves}: a request is one wave deeper than the bytes that
     * led to it), the same on any machine; {@code roundTripWaves} is the clock's count, which CPU turn-taking adds to.
     */
    public long dependencyWaves;

    void set(RequestStats.Snapshot s, Indices indices) {
      requests = s.requests() + s.metadataRequests();
      bytesFetched = s.bytesRead();
      chainPerThread = s.longestChain();
      roundTripWaves = s.roundTripWaves();
      dependencyWaves = indices instanceof MountedIndices mounted ? mounted.lastCost().waves() : 0;
    }
  }

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    dataset = BenchmarkData.dataset(scale);
    work = Workloads.byName(workload, dataset.spec());
    snapshots = WarmSets.snapshots(dataset, work, warmSet);
    BlobStore base = BenchStores.open(dataset, store);
    LatencyModel model = store.equals("fs") ? LatencyModel.of(ttfbMs, mbPerSec) : LatencyModel.NONE;
    modelled = new LatencyModelBlobStore(StorePolicy.DEFAULT.apply(base), model);
    repository = SnapshotRepository.open(modelled);
    cacheDir = BenchmarkData.scratch("cold-cache");
    long region = BlobIndexes.regionSize(regionSize, dataset);
    cache = BlobIndexes.cache(cacheDir, 2 * dataset.indexBytes() + (64 << 20), region);
  }

  @Setup(Level.Invocation)
  public void mountCold() throws IOException {
    cache.clear();
    indexes = MountedIndices.mount(repository, snapshots, cache);
    modelled.stats().reset();
  }

  @Benchmark
  public Workload.Result search(Requests counts) throws IOException {
    Workload.Result result = work.run(indexes);
    counts.set(modelled.stats().snapshot(), indexes);
    return result;
  }

  @TearDown(Level.Invocation)
  public void unmount() throws IOException {
    indexes.close();
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    cache.close();
    modelled.close();
    BenchmarkData.delete(cacheDir);
  }
}
