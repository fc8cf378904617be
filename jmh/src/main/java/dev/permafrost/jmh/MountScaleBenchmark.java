/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.jmh.data.AccessLogDocuments;
import dev.permafrost.jmh.data.AccessLogGenerator;
import dev.permafrost.jmh.data.Dataset;
import dev.permafrost.jmh.store.BlobIndexes;
import dev.permafrost.jmh.store.LatencyModel;
import dev.permafrost.jmh.store.LatencyModelBlobStore;
import dev.permafrost.jmh.store.RequestStats;
import dev.permafrost.snapshot.SnapshotOptions;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.BlobDirectory;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.IOUtils;
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
 * Many mounted snapshots in one JVM. {@code mount}: the time to mount {@code count} small snapshots (manifest only,
 * no reader), with the heap they hold per mount. {@code openReaders}: a cold {@code DirectoryReader.open} on each
 * mount, with the blob requests it made beyond the manifest (the target is none). The small snapshots are 100
 * snapshots of one 2,000-event index, mounted round robin; the store is the filesystem with an optional modelled
 * latency ({@code ttfbMs}, default 0 so that 10,000 manifest reads do not take five minutes).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-Xmx1g"})
@Warmup(iterations = 1)
@Measurement(iterations = 3)
public class MountScaleBenchmark {
  private static final int SNAPSHOTS = 100;

  @Param({"1000", "10000"})
  public int count;

  @Param({"0"})
  public double ttfbMs;

  private LatencyModelBlobStore store;
  private SnapshotRepository repository;
  private SharedRegionCache cache;
  private Path cacheDir;
  private final List<BlobDirectory> mounts = new ArrayList<>();

  /** Per-invocation results besides time. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Counts {
    public long heapBytesPerMount;
    public long requests;
    public long requestsPerReaderOpen;
  }

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    Path root = Dataset.defaultBaseDir().resolve("mount-scale");
    BlobStore base = FileSystemBlobStore.open(root.resolve("repository"), false);
    if (!Files.exists(root.resolve("ready"))) {
      createSnapshots(root, base);
      Files.createFile(root.resolve("ready"));
    }
    store = new LatencyModelBlobStore(StorePolicy.DEFAULT.apply(base), ttfbMs == 0 ? LatencyModel.NONE : LatencyModel.of(ttfbMs, 80));
    repository = SnapshotRepository.open(store);
    cacheDir = BenchmarkData.scratch("mount-cache");
    cache = BlobIndexes.cache(cacheDir, 64 << 20, 1 << 20);
  }

  private static void createSnapshots(Path root, BlobStore store) throws IOException {
    Path index = root.resolve("index");
    try (FSDirectory dir = FSDirectory.open(index);
        IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig().setOpenMode(IndexWriterConfig.OpenMode.CREATE))) {
      for (var event : new AccessLogGenerator(1).day(java.time.LocalDate.of(2024, 1, 1), 2_000)) {
        writer.addDocument(AccessLogDocuments.toDocument(event));
      }
      writer.forceMerge(1);
      writer.commit();
    }
    SnapshotRepository repo = SnapshotRepository.open(store);
    try (FSDirectory dir = FSDirectory.open(index)) {
      for (int i = 0; i < SNAPSHOTS; i++) {
        if (!store.exists("snapshots/" + name(i) + ".manifest")) {
          repo.createSnapshot(name(i), dir, SnapshotOptions.DEFAULTS.withPointFields(AccessLogDocuments.TIMESTAMP));
        }
      }
    }
  }

  private static String name(int i) {
    return String.format(java.util.Locale.ROOT, "small-%03d", i);
  }

  private static long usedHeap() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /** Mounts {@code count} snapshots (timed); the heap they hold is measured after. */
  @Benchmark
  public int mount(Counts counts) throws IOException {
    closeMounts();
    long before = usedHeap();
    store.stats().reset();
    long start = System.nanoTime();
    for (int i = 0; i < count; i++) {
      mounts.add(BlobDirectory.open(repository, name(i % SNAPSHOTS), cache, "mount-" + i));
    }
    long elapsed = System.nanoTime() - start;
    counts.requests = store.stats().snapshot().requests();
    counts.heapBytesPerMount = (usedHeap() - before) / count;
    return (int) (elapsed >>> 32) + mounts.size();
  }

  @Setup(Level.Invocation)
  public void mountForReaders() throws IOException {
    if (mounts.size() != count) {
      closeMounts();
      for (int i = 0; i < count; i++) {
        mounts.add(BlobDirectory.open(repository, name(i % SNAPSHOTS), cache, "mount-" + i));
      }
    }
    cache.clear();
  }

  /** A cold {@code DirectoryReader.open} (then close) on every mount. */
  @Benchmark
  public long openReaders(Counts counts) throws IOException {
    store.stats().reset();
    long docs = 0;
    for (BlobDirectory dir : mounts) {
      try (DirectoryReader reader = DirectoryReader.open(dir)) {
        docs += reader.maxDoc();
      }
    }
    RequestStats.Snapshot s = store.stats().snapshot();
    counts.requests = s.requests() + s.metadataRequests();
    counts.requestsPerReaderOpen = counts.requests / Math.max(1, mounts.size());
    return docs;
  }

  private void closeMounts() throws IOException {
    IOUtils.close(mounts);
    mounts.clear();
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    closeMounts();
    cache.close();
    store.close();
    BenchmarkData.delete(cacheDir);
  }
}
