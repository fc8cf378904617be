/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.sample.Dataset;
import dev.permafrost.jmh.store.BlobIndexes;
import dev.permafrost.jmh.store.LocalIndexes;
import dev.permafrost.jmh.store.MountedIndices;
import dev.permafrost.jmh.store.WarmSets;
import dev.permafrost.jmh.workload.IndexSet;
import dev.permafrost.jmh.workload.Indices;
import dev.permafrost.jmh.workload.Workload;
import dev.permafrost.jmh.workload.Workloads;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.BlobDirectory;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.store.Directory;
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
 * Each workload with everything cached: through {@code BlobDirectory} on a warm shared cache that holds the
 * whole data set, and on the local copies of the same indices through {@code MMapDirectory} and
 * {@code NIOFSDirectory}. {@code blob} searches through the catalog (readers opened per search, leases, costs
 * counted, the hits' stored fields fetched by it); {@code blobdir} opens the same snapshots' {@code BlobDirectory}
 * once and searches them as the local directories are searched ({@link IndexSet}): the directory's own cost against
 * mmap's, without the catalog's.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class WarmSearchBenchmark {
  @Param({"smoke"})
  public String scale;

  @Param({"needle", "dashboard", "discover"})
  public String workload;

  @Param({"blob", "blobdir", "mmap", "niofs"})
  public String directory;

  /**
   * For {@code blob}: the snapshots' warm set, {@code none}, {@code workload} or {@code sibling} (see
   * {@link WarmSets}); what the manifest keeps is read from heap, the rest from the cache.
   */
  @Param({"none"})
  public String warmSet;

  /**
   * For {@code blob} and {@code blobdir}: the cache's region size, {@code auto} ({@link BlobIndexes#regionSizeFor}:
   * about 1/2048 of the data), {@code default} (the cache's own default for its size) or a size such as {@code 1mb}.
   * A window between cached bytes ends at its region's end: larger regions, fewer moves.
   */
  @Param({"auto"})
  public String regionSize;

  private Workload work;
  private Indices indexes;
  private BlobStore store;
  private SharedRegionCache cache;
  private Path cacheDir;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    Dataset dataset = BenchmarkData.dataset(scale);
    work = Workloads.byName(workload, dataset.spec());
    switch (directory) {
      case "blob" -> {
        store = dataset.openStore();
        cacheDir = BenchmarkData.scratch("warm-cache");
        cache = BlobIndexes.cache(cacheDir, 2 * dataset.indexBytes() + (64 << 20), BlobIndexes.regionSize(regionSize, dataset));
        indexes = MountedIndices.mount(SnapshotRepository.open(store), WarmSets.snapshots(dataset, work, warmSet), cache);
      }
      case "blobdir" -> {
        store = dataset.openStore();
        cacheDir = BenchmarkData.scratch("warm-cache");
        cache = BlobIndexes.cache(cacheDir, 2 * dataset.indexBytes() + (64 << 20), BlobIndexes.regionSize(regionSize, dataset));
        SnapshotRepository repository = SnapshotRepository.open(store);
        List<Directory> dirs = new ArrayList<>();
        for (String name : WarmSets.snapshots(dataset, work, warmSet)) {
          dirs.add(BlobDirectory.open(repository, name, cache));
        }
        indexes = IndexSet.open(dirs);
      }
      case "mmap" -> indexes = LocalIndexes.open(dataset, LocalIndexes.Kind.MMAP);
      case "niofs" -> indexes = LocalIndexes.open(dataset, LocalIndexes.Kind.NIOFS);
      default -> throw new IllegalArgumentException("unknown directory '" + directory + "': use blob, blobdir, mmap or niofs");
    }
    // Fill the cache (and the page cache): twice, so that prefetched ranges are in too.
    work.run(indexes);
    work.run(indexes);
    if (cache != null) {
      System.out.println("# cache after warm-up: " + cache.stats().total());
    }
  }

  @Benchmark
  public Workload.Result search() throws IOException {
    return work.run(indexes);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    if (cache != null) {
      System.out.println("# cache after the run: " + cache.stats().total());
    }
    indexes.close();
    if (cache != null) {
      cache.close();
    }
    if (store != null) {
      store.close();
    }
    BenchmarkData.delete(cacheDir);
  }
}
