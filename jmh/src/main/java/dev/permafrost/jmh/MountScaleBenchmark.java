/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.Lease;
import dev.permafrost.jmh.store.LatencyModel;
import dev.permafrost.jmh.store.LatencyModelBlobStore;
import dev.permafrost.jmh.store.RequestStats;
import dev.permafrost.sample.AccessLogDocuments;
import dev.permafrost.sample.AccessLogGenerator;
import dev.permafrost.sample.Dataset;
import dev.permafrost.snapshot.SnapshotOptions;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.FSDirectory;
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
 * Many mounted snapshots in one {@link Catalog}. {@code mount}: the time to mount {@code count} small snapshots
 * (manifest only, no reader), with the heap each idle mount holds. {@code reopen}: one search on each of
 * {@value #SNAPSHOTS} mounts in turn, with at most one reader open, so every search first closes the previous
 * index's reader and reopens its own: {@code warm} with their regions in the cache (target: no request), {@code cold}
 * after the cache was cleared (target: the manifest, and what the search itself needs). The small snapshots are
 * {@value #SNAPSHOTS} snapshots of one 2,000-event index, mounted round robin; the store is the filesystem with an
 * optional modelled latency ({@code ttfbMs}, default 0 so that 10,000 manifest reads do not take five minutes).
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

  /** For {@code reopen}: whether the reopened indices' regions are cached ({@code warm}) or not ({@code cold}). */
  @Param({"warm", "cold"})
  public String cached;

  private LatencyModelBlobStore store;
  private SnapshotRepository repository;
  private SharedRegionCache cache;
  private Path cacheDir;
  private Catalog catalog;
  private final Query query = new TermQuery(new Term(AccessLogDocuments.STATUS, "404"));

  /** Per-invocation results besides time. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Counts {
    public long heapBytesPerMount;
    public long requests;
    public double requestsPerReopen;
    public long readerOpens;
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
    cache = SharedRegionCache.builder().path(cacheDir).size(256 << 20).build(); // the default layout
    newCatalog();
  }

  private void newCatalog() throws IOException {
    if (catalog != null) {
      catalog.close();
    }
    catalog = Catalog.builder(cache).maxOpenReaders(1).build();
  }

  private static void createSnapshots(Path root, BlobStore store) throws IOException {
    Path index = root.resolve("index");
    try (FSDirectory dir = FSDirectory.open(index);
        IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig().setOpenMode(IndexWriterConfig.OpenMode.CREATE))) {
      for (var event : new AccessLogGenerator(1).day(LocalDate.of(2024, 1, 1), 2_000)) {
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
    return String.format(Locale.ROOT, "small-%03d", i);
  }

  private static long usedHeap() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private void mountAll() throws IOException {
    for (int i = 0; i < count; i++) {
      catalog.mount("mount-" + i, repository, name(i % SNAPSHOTS));
    }
  }

  /** Mounts {@code count} snapshots (timed); the heap they hold is measured after. */
  @Benchmark
  public int mount(Counts counts) throws IOException {
    newCatalog();
    long before = usedHeap();
    store.stats().reset();
    long start = System.nanoTime();
    mountAll();
    long elapsed = System.nanoTime() - start;
    counts.requests = store.stats().snapshot().requests();
    counts.heapBytesPerMount = (usedHeap() - before) / count;
    return (int) (elapsed >>> 32) + catalog.list().size();
  }

  @Setup(Level.Invocation)
  public void prepareReopen() throws IOException {
    if (catalog.list().size() != count) {
      newCatalog();
      mountAll();
    }
    // every reopened index first searched once, so that warm means "its regions are cached"
    for (int i = 0; i < SNAPSHOTS; i++) {
      search(i);
    }
    if (cached.equals("cold")) {
      cache.clear();
    }
  }

  private int search(int i) throws IOException {
    try (Lease lease = catalog.acquire("mount-" + i)) {
      return lease.searcher().count(query);
    }
  }

  /** One search on each of {@value #SNAPSHOTS} mounts in turn, each reopening its reader (at most one is open). */
  @Benchmark
  public long reopen(Counts counts) throws IOException {
    store.stats().reset();
    long opensBefore = catalog.stats().readerOpens();
    long hits = 0;
    for (int i = 0; i < SNAPSHOTS; i++) {
      hits += search(i);
    }
    RequestStats.Snapshot s = store.stats().snapshot();
    counts.requests = s.requests() + s.metadataRequests();
    counts.readerOpens = catalog.stats().readerOpens() - opensBefore;
    counts.requestsPerReopen = (double) counts.requests / Math.max(1, counts.readerOpens);
    return hits;
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    catalog.close();
    cache.close();
    store.close();
    BenchmarkData.delete(cacheDir);
  }
}
