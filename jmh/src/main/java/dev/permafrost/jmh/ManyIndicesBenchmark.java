/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.jmh.store.BenchStores;
import dev.permafrost.jmh.store.BlobIndexes;
import dev.permafrost.jmh.store.LatencyModel;
import dev.permafrost.jmh.store.LatencyModelBlobStore;
import dev.permafrost.jmh.store.MountedIndices;
import dev.permafrost.jmh.store.RequestStats;
import dev.permafrost.jmh.workload.Workload;
import dev.permafrost.jmh.workload.Workloads;
import dev.permafrost.sample.Dataset;
import dev.permafrost.snapshot.SnapshotRepository;
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
 * A cold search over many small daily indices ({@code scale=100x2000}, {@code 1000x2000}), all mounted in one
 * {@link Catalog} and searched by one call, against the store's own limit: with {@code R} requests, at most
 * {@code max_concurrent_requests} in flight, a first byte after {@code ttfbMs} and {@code mbPerSec} per stream, no
 * search can take less than about {@code R / max_concurrent_requests x ttfb + bytes / bandwidth}. The secondary
 * results give that limit ({@code limitMs}, with the bandwidth of one stream: an upper estimate of the limit) next to
 * the requests, bytes and waves of dependent requests. The modelled store sits inside the store policy, so that its
 * latency holds a request place: no more than {@code max_concurrent_requests} are in flight, as against a real store. {@code searchThreads} is the catalog's setting: 64 (its
 * default) against 8 (the default before it was sized for the store).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-Xmx3g"})
@Warmup(iterations = 1)
@Measurement(iterations = 3)
public class ManyIndicesBenchmark {
  @Param({"100x2000"})
  public String scale;

  @Param({"needle", "dashboard"})
  public String workload;

  @Param({"64"})
  public int searchThreads;

  @Param({"30"})
  public double ttfbMs;

  @Param({"80"})
  public double mbPerSec;

  private Dataset dataset;
  private Workload work;
  private LatencyModelBlobStore modelled;
  private SnapshotRepository repository;
  private SharedRegionCache cache;
  private Path cacheDir;
  private MountedIndices indexes;

  /** Per-invocation counts of the blob store and the store's limit for them, reported next to the time. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Requests {
    public long requests;
    public long bytesFetched;
    public long roundTripWaves;
    public long limitMs;

    void set(RequestStats.Snapshot s, double ttfbMs, double mbPerSec) {
      requests = s.requests() + s.metadataRequests();
      bytesFetched = s.bytesRead();
      roundTripWaves = s.roundTripWaves();
      limitMs = Math.round(requests / (double) StorePolicy.DEFAULT.maxConcurrentRequests() * ttfbMs
          + bytesFetched / (mbPerSec * 1e6) * 1e3);
    }
  }

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    dataset = BenchmarkData.dataset(scale);
    work = Workloads.byName(workload, dataset.spec());
    BlobStore base = BenchStores.open(dataset, "fs");
    // the model inside the policy: its modelled latency holds one of the policy's request places, as a real request
    // does, so that at most max_concurrent_requests are in flight and the limit below is the store's
    modelled = new LatencyModelBlobStore(base, LatencyModel.of(ttfbMs, mbPerSec));
    repository = SnapshotRepository.open(StorePolicy.DEFAULT.apply(modelled));
    cacheDir = BenchmarkData.scratch("many-cache");
    cache = BlobIndexes.cache(cacheDir, 2 * dataset.indexBytes() + (64 << 20), BlobIndexes.regionSizeFor(dataset));
  }

  @Setup(Level.Invocation)
  public void mountCold() throws IOException {
    cache.clear();
    indexes = MountedIndices.mount(repository, dataset.indexNames(),
        Catalog.builder(cache).searchThreads(searchThreads));
    modelled.stats().reset();
  }

  @Benchmark
  public Workload.Result search(Requests counts) throws IOException {
    Workload.Result result = work.run(indexes);
    counts.set(modelled.stats().snapshot(), ttfbMs, mbPerSec);
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
