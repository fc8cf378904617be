/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh;

import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.Lease;
import dev.permafrost.elasticsearch.EngineSnapshotRepository;
import dev.permafrost.jmh.store.LatencyModel;
import dev.permafrost.jmh.store.LatencyModelBlobStore;
import dev.permafrost.jmh.store.RequestStats;
import dev.permafrost.opensearch.fixture.OpenSearchFixture;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
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
 * The cold open of one shard of a snapshot a real OpenSearch 3.2 node wrote (the engine-fixture module's: shard
 * 0 of {@code logs-a} at {@code snap-2}, two segments in compound files), through an empty cache, from a store
 * modelled as S3 ({@code ttfbMs} to first byte, 80 MB/s): the time to a reader, with the requests and the waves of
 * dependent requests it cost. The shard is opened when it is mounted (its formats are checked then), so what is
 * timed is the mount and the first lease: the shard's {@code snap-*.dat} (one request, one wave) and the opening; the
 * repository's facts about the index (its metadata) are read before and not counted.
 * {@code repository}: {@code repo} (files whole) or {@code repo-chunked} (metadata compressed, files in 64 KiB parts).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-Xmx1g"})
@Warmup(iterations = 3)
@Measurement(iterations = 10)
public class EngineColdOpenBenchmark {
  @Param({"30"})
  public double ttfbMs;

  @Param({"repo", "repo-chunked"})
  public String repository;

  private Path fixture;
  private Path cacheDir;
  private LatencyModelBlobStore store;
  private SharedRegionCache cache;
  private Catalog catalog;
  private EngineSnapshotRepository repo;

  /** What one cold open cost. */
  @AuxCounters(AuxCounters.Type.EVENTS)
  @State(Scope.Thread)
  public static class Counts {
    public long requests;
    public long waves;
    public long bytesRead;
  }

  @Setup(Level.Trial)
  public void fixture() throws Exception {
    fixture = OpenSearchFixture.ensure();
  }

  @Setup(Level.Invocation)
  public void mountCold() throws IOException {
    cacheDir = Files.createTempDirectory("permafrost-engine-open");
    store = new LatencyModelBlobStore(StorePolicy.DEFAULT.apply(FileSystemBlobStore.open(fixture.resolve(repository), false)),
        LatencyModel.of(ttfbMs, 80));
    cache = SharedRegionCache.builder().path(cacheDir).size("64mb").regionSize(1 << 20).build();
    catalog = Catalog.builder(cache).build();
    repo = EngineSnapshotRepository.open(store);
    String shard = EngineSnapshotRepository.shard("snap-2", "logs-a", 0);
    repo.parseManifest(shard, repo.readManifestBytes(shard));
    store.stats().reset();
  }

  @Benchmark
  public int coldOpen(Counts counts) throws IOException {
    repo.mount(catalog, "logs-a", "snap-2", "logs-a");
    try (Lease lease = catalog.acquire("logs-a.0")) {
      RequestStats.Snapshot s = store.stats().snapshot();
      counts.requests = s.requests();
      counts.waves = s.roundTripWaves();
      counts.bytesRead = s.bytesRead();
      return lease.reader().maxDoc();
    }
  }

  @TearDown(Level.Invocation)
  public void close() throws IOException {
    catalog.close();
    cache.close();
    store.close();
    try (Stream<Path> paths = Files.walk(cacheDir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
