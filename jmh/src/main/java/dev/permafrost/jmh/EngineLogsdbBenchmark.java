/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh;

import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.Lease;
import dev.permafrost.elasticsearch.EngineSnapshotRepository;
import dev.permafrost.jmh.engine.LogsdbDashboard;
import dev.permafrost.jmh.engine.LogsdbData;
import dev.permafrost.jmh.engine.LogsdbDataWriter;
import dev.permafrost.jmh.store.BlobIndexes;
import dev.permafrost.jmh.store.LatencyModel;
import dev.permafrost.jmh.store.LatencyModelBlobStore;
import dev.permafrost.jmh.store.MountedIndices;
import dev.permafrost.jmh.store.RequestStats;
import dev.permafrost.jmh.workload.DashboardWorkload;
import dev.permafrost.jmh.workload.Workloads;
import dev.permafrost.store.CacheStats;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.search.Query;
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
 * The dashboard over a snapshot an engine wrote: an Elasticsearch 9.3.3 logsdb index of {@code docs} access-log
 * documents ({@link LogsdbData}, written once by a real node), mounted with {@link EngineSnapshotRepository}, read
 * through the modelled store ({@link LatencyModelBlobStore}, {@code ttfbMs} to first byte, {@code mbPerSec} per
 * stream), searched with the workload's own collector ({@link DashboardWorkload#collectorManager()}) through the
 * catalog, as over Permafrost's own snapshots. {@code cache}:
 *
 * <ul>
 *   <li>{@code cold}, as {@link ColdSearchBenchmark}: before each invocation the cache (twice the data) is emptied,
 *       the index mounted again (mounting opens the shard once to check its formats: that is not timed) and the cache
 *       emptied again, so the search opens the shard's reader and reads everything from the store;
 *   <li>a share of the data ({@code 0.005}), as {@link SmallCacheBenchmark}: a cache of that share, one cold run in
 *       the set-up, then every invocation a repeat on the same mount.
 * </ul>
 *
 * The set-up checks the first answer against the node's own answer to the dashboard's search request, recorded when
 * the data was written (a difference fails it), and every invocation's answer against the first. Secondary results
 * per invocation: requests, bytes fetched, waves by dependency ({@code dependencyWaves}: the catalog's
 * {@code SearchCost.waves}), waves by the clock, and with a small cache its hit ratio.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-Xmx2g"})
@Warmup(iterations = 2)
@Measurement(iterations = 5)
public class EngineLogsdbBenchmark {
  /** The index's documents: one day of the access-log generator. */
  @Param({"2000000"})
  public int docs;

  /** {@code cold}, or the cache's share of the data for repeats through a small cache. */
  @Param({"cold", "0.005"})
  public String cache;

  @Param({"30"})
  public double ttfbMs;

  @Param({"80"})
  public double mbPerSec;

  /**
   * The cache's region size: {@code as-others} (what {@link ColdSearchBenchmark} and {@link SmallCacheBenchmark} use:
   * {@code auto} cold, {@code default} with a small cache), {@code auto} (about 1/2048 of the data), {@code default}
   * (the cache's own default for its size) or a size.
   */
  @Param({"as-others"})
  public String regionSize;

  private LogsdbData data;
  private DashboardWorkload work;
  private LatencyModelBlobStore store;
  private EngineSnapshotRepository repository;
  private SharedRegionCache regions;
  private Path cacheDir;
  private MountedIndices indices;
  private Query query;
  private DashboardWorkload.Result expected;
  private DashboardWorkload.Result last;
  private CacheStats.Counts before;

  /** Per-invocation counts, reported by JMH next to the time. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Counts {
    public long requests;
    public long bytesFetched;
    /** Waves by dependency, the same on any machine (see {@link ColdSearchBenchmark.Requests#dependencyWaves}). */
    public long dependencyWaves;
    public long roundTripWaves;
    /** With a small cache: hits over hits and misses, reads served directly from the store counted as misses. */
    public double hitRatioPercent;
  }

  private boolean cold() {
    return cache.equals("cold");
  }

  @Setup(Level.Trial)
  public void setUp() throws IOException, InterruptedException {
    data = LogsdbDataWriter.getOrCreate(docs);
    System.out.println("# data set: " + data + ", " + data.repositoryBytes() + " bytes; written: " + data.generation());
    work = (DashboardWorkload) Workloads.byName("dashboard", data.spec());
    store = new LatencyModelBlobStore(StorePolicy.DEFAULT.apply(FileSystemBlobStore.open(data.repository(), false)),
        LatencyModel.of(ttfbMs, mbPerSec));
    repository = EngineSnapshotRepository.open(store);
    long bytes = data.repositoryBytes();
    String region = regionSize.equals("as-others") ? (cold() ? "auto" : "default") : regionSize;
    long size = cold() ? 2 * bytes + (64 << 20) : (long) (Double.parseDouble(cache) * bytes);
    cacheDir = BenchmarkData.scratch("engine-logsdb-cache");
    regions = BlobIndexes.cache(cacheDir, size, BlobIndexes.regionSize(region, bytes));
    System.out.println("# cache: " + regions.sizeInBytes() + " bytes, regions of " + regions.stats().regionSize());
    try (MountedIndices first = mount(); Lease lease = first.catalog().acquire(first.names().get(0))) {
      query = LogsdbDashboard.query(work, lease.reader());
      System.out.println("# @timestamp read from its " + (LogsdbDashboard.hasTimestampPoints(lease.reader())
          ? "points" : "doc values") + "; the query: " + query);
    }
    regions.clear();
    indices = mount();
    regions.clear(); // what mounting's check of the formats read: the first search reads everything from the store
    expected = indices.collect(query, work.collectorManager()); // cold
    DashboardAnswer.checkNode(expected, data.nodeAnswer());
    System.out.println("# the node's answer matched: " + expected.hits() + " hits, " + expected.histogram().size()
        + " buckets; the first run: " + indices.lastCost().summary());
    if (cold()) {
      indices.close();
      indices = null;
    }
  }

  private MountedIndices mount() throws IOException {
    return MountedIndices.mountEngine(repository, LogsdbData.SNAPSHOT, LogsdbData.INDEX, Catalog.builder(regions));
  }

  @Setup(Level.Invocation)
  public void prepare() throws IOException {
    if (cold()) {
      regions.clear();
      indices = mount();
      regions.clear(); // what mounting's check of the formats read: the search opens its reader from the store
    }
    before = regions.stats().total();
    store.stats().reset();
  }

  @Benchmark
  public DashboardWorkload.Result dashboard(Counts counts) throws IOException {
    DashboardWorkload.Result result = indices.collect(query, work.collectorManager());
    RequestStats.Snapshot s = store.stats().snapshot();
    counts.requests = s.requests() + s.metadataRequests();
    counts.bytesFetched = s.bytesRead();
    counts.roundTripWaves = s.roundTripWaves();
    counts.dependencyWaves = indices.lastCost().waves();
    CacheStats.Counts after = regions.stats().total();
    long hits = after.hits() - before.hits();
    long misses = after.misses() - before.misses() + after.directReads() - before.directReads();
    counts.hitRatioPercent = hits + misses == 0 ? 0 : 100.0 * hits / (hits + misses);
    last = result;
    return result;
  }

  @TearDown(Level.Invocation)
  public void check() {
    if (!expected.equals(last)) {
      throw new IllegalStateException("a run's dashboard differs from the first, checked one: " + last + " vs "
          + expected);
    }
    if (cold()) {
      indices.close();
      indices = null;
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    if (indices != null) {
      indices.close();
    }
    regions.close();
    store.close();
    BenchmarkData.delete(cacheDir);
  }
}
