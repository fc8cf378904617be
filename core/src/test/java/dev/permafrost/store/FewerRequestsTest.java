/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static dev.permafrost.testutil.Waits.awaitNoFetch;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.blob.FilterBlobStore;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.snapshot.CachedManifests;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.snapshot.TestManifests;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.search.LeafCollector;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.SimpleCollector;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ranges of one blob that a search names together are fetched in one request when the gaps between them cost less
 * than a round trip by the store policy's model ({@link StorePolicy#bridgedGapBytes()}), and in one request each when
 * they do not; a reader's fill cut short by its region's end is one request with what carries it on. Counted on the
 * store's requests (a {@link FilterBlobStore} over a {@link FileSystemBlobStore}), never timed; every byte read back
 * is checked against the file.
 */
class FewerRequestsTest {
  private static final int CHUNK = 32 << 10;
  private static final int REGION = 64 << 10;
  private static final int LENGTH = 2 << 20;
  /** The length of {@code small.bin} (the first bytes of {@code data.bin}): less than an input's fill, 128 KiB. */
  private static final int SMALL = 100_000;
  /** The store policy's model: 1 s to a first byte at 100,000 bytes a second, so gaps up to 100,000 bytes are read. */
  private static final long BRIDGED = 100_000;
  private static final StorePolicy MODEL = StorePolicy.builder().firstByteLatency(Duration.ofSeconds(1))
      .readThroughput(BRIDGED).build();

  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private final byte[] bytes = new byte[LENGTH];
  private CountingStore store;
  private SharedRegionCache cache;
  private BlobDirectory dir;

  /** Counts the ranged reads of the data blob (not its chunk table), as [offset, end) pairs. */
  static final class CountingStore extends FilterBlobStore {
    final List<long[]> reads = new ArrayList<>();
    final List<String> blobs = new ArrayList<>();

    CountingStore(BlobStore in) {
      super(in);
    }

    @Override
    public InputStream read(String blobName, long offset, long length) throws IOException {
      if (!blobName.contains(".crc32c-")) {
        synchronized (reads) {
          reads.add(new long[] {offset, offset + length});
          blobs.add(blobName);
        }
      }
      return super.read(blobName, offset, length);
    }

    List<long[]> reads() {
      synchronized (reads) {
        List<long[]> copy = new ArrayList<>(reads);
        copy.sort((a, b) -> Long.compare(a[0], b[0]));
        return copy;
      }
    }

    /** The reads of {@code blob}, in the order of their offsets. */
    List<long[]> readsOf(String blob) {
      synchronized (reads) {
        List<long[]> of = new ArrayList<>();
        for (int i = 0; i < reads.size(); i++) {
          if (blobs.get(i).equals(blob)) {
            of.add(reads.get(i));
          }
        }
        of.sort((a, b) -> Long.compare(a[0], b[0]));
        return of;
      }
    }

    void clear() {
      synchronized (reads) {
        reads.clear();
        blobs.clear();
      }
    }
  }

  private IndexInput mount(StorePolicy policy) throws IOException {
    return mount(policy, REGION);
  }

  private IndexInput mount(StorePolicy policy, int regionSize) throws IOException {
    new Random(seed).nextBytes(bytes);
    FileSystemBlobStore backend = FileSystemBlobStore.open(tmp.resolve("repo"), false);
    store = new CountingStore(backend);
    SnapshotManifest manifest = TestManifests.upload(store, "s", "s/",
        Map.of("data.bin", bytes, "small.bin", Arrays.copyOf(bytes, SMALL)), 0, CHUNK);
    store.clear();
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(8L << 20).regionSize(regionSize)
        .tailRegionSize(CHUNK).build();
    dir = BlobDirectory.open(manifest, policy.apply(store), cache, "s");
    return dir.openInput("data.bin", IOContext.DEFAULT);
  }

  @AfterEach
  void close() throws IOException {
    if (dir != null) {
      dir.close();
    }
    if (cache != null) {
      cache.close();
    }
  }

  /** Prefetches [from, to) pairs in one batch, waits for the fetches, and returns the requests they made. */
  private List<long[]> prefetchTogether(IndexInput in, long... ranges) throws Exception {
    try (PrefetchBatch batch = PrefetchBatch.open()) {
      for (int i = 0; i < ranges.length; i += 2) {
        in.prefetch(ranges[i], ranges[i + 1] - ranges[i]);
      }
      assertEquals(List.of(), store.reads(), "nothing is fetched while the batch is open");
    }
    awaitNoFetch(cache);
    return store.reads();
  }

  private void assertReadsBack(IndexInput in, long... ranges) throws Exception {
    for (int i = 0; i < ranges.length; i += 2) {
      int n = (int) (ranges[i + 1] - ranges[i]);
      byte[] got = new byte[n];
      in.seek(ranges[i]);
      in.readBytes(got, 0, n);
      byte[] want = new byte[n];
      System.arraycopy(bytes, (int) ranges[i], want, 0, n);
      assertArrayEquals(want, got, "bytes [" + ranges[i] + ", " + ranges[i + 1] + "), seed " + seed);
    }
  }

  private static String show(List<long[]> reads) {
    StringBuilder out = new StringBuilder();
    for (long[] r : reads) {
      out.append('[').append(r[0]).append(", ").append(r[1]).append(") ");
    }
    return out.toString();
  }

  @Test
  void theModelsGapIsWhatTheStoreSendsInOneFirstByteLatency() {
    assertEquals(BRIDGED, MODEL.bridgedGapBytes());
    // S3 Standard's figures by default: 30 ms at 80 MiB/s, about 2.5 MB
    assertEquals((long) (0.030 * (80 << 20)), StorePolicy.DEFAULT.bridgedGapBytes());
    assertEquals(0, StorePolicy.builder().firstByteLatency(Duration.ZERO).build().bridgedGapBytes());
    assertThrows(IllegalArgumentException.class, () -> StorePolicy.builder().readThroughput(0));
  }

  @Test
  void twoRangesWithAGapUnderTheModelsAreOneRequest() throws Exception {
    try (IndexInput in = mount(MODEL)) {
      // two regions apart: the 64 KiB between them cost less than a round trip
      List<long[]> reads = prefetchTogether(in, 0, REGION, 2L * REGION, 3L * REGION);
      assertEquals(1, reads.size(), "requests: " + show(reads) + " seed " + seed);
      assertArrayEquals(new long[] {0, 3L * REGION}, reads.get(0));
      store.clear();
      assertReadsBack(in, 0, REGION, 2L * REGION, 3L * REGION);
      assertEquals(List.of(), store.reads(), "read from the cache");
      // the gap was read and dropped, not cached: a read of it fetches it
      assertReadsBack(in, REGION + 10, REGION + 20);
      assertEquals(1, store.reads().size());
    }
  }

  @Test
  void aGapInsideOneRegionIsKeptInItsSlot() throws Exception {
    int region = 8 * CHUNK;
    try (IndexInput in = mount(MODEL, region)) {
      // three chunks apart in one region: 98,304 bytes, under the model's gap
      long[] ranges = {CHUNK, 2L * CHUNK, 5L * CHUNK, 6L * CHUNK};
      List<long[]> reads = prefetchTogether(in, ranges);
      assertEquals(1, reads.size(), "requests: " + show(reads) + " seed " + seed);
      assertArrayEquals(new long[] {CHUNK, 6L * CHUNK}, reads.get(0));
      store.clear();
      assertReadsBack(in, ranges);
      assertReadsBack(in, 2L * CHUNK, 5L * CHUNK);
      assertEquals(List.of(), store.reads(), "the gap inside the region was kept: " + show(store.reads()));
      // what the request did not read is not there
      assertReadsBack(in, 7L * CHUNK, 7L * CHUNK + 10);
      assertEquals(1, store.reads().size(), show(store.reads()));
    }
  }

  @Test
  void aGapLongerThanTheModelsIsNotRead() throws Exception {
    try (IndexInput in = mount(MODEL)) {
      // 128 KiB apart: more than 100,000 bytes
      List<long[]> reads = prefetchTogether(in, 0, REGION, 3L * REGION, 4L * REGION);
      assertEquals(2, reads.size(), "requests: " + show(reads) + " seed " + seed);
      assertArrayEquals(new long[] {0, REGION}, reads.get(0));
      assertArrayEquals(new long[] {3L * REGION, 4L * REGION}, reads.get(1));
      assertReadsBack(in, 0, REGION, 3L * REGION, 4L * REGION);
    }
  }

  @Test
  void theGapsOfOneRequestAddUpToNoMoreThanTheModels() throws Exception {
    try (IndexInput in = mount(MODEL)) {
      // three ranges 64 KiB apart: either gap alone is read, both (128 KiB) are not
      List<long[]> reads = prefetchTogether(in, 0, REGION, 2L * REGION, 3L * REGION, 4L * REGION, 5L * REGION);
      assertEquals(2, reads.size(), "requests: " + show(reads) + " seed " + seed);
      assertArrayEquals(new long[] {0, 3L * REGION}, reads.get(0));
      assertArrayEquals(new long[] {4L * REGION, 5L * REGION}, reads.get(1));
      assertReadsBack(in, 0, REGION, 2L * REGION, 3L * REGION, 4L * REGION, 5L * REGION);
    }
  }

  @Test
  void withoutAModelOnlyAdjacentRangesAreOneRequest() throws Exception {
    try (IndexInput in = mount(StorePolicy.builder().firstByteLatency(Duration.ZERO).build())) {
      // named out of order, in several calls: the adjacent ones still go together
      List<long[]> reads = prefetchTogether(in, 2L * REGION, 3L * REGION, 0, REGION, REGION, 2L * REGION,
          4L * REGION, 5L * REGION);
      assertEquals(2, reads.size(), "requests: " + show(reads) + " seed " + seed);
      assertArrayEquals(new long[] {0, 3L * REGION}, reads.get(0));
      assertArrayEquals(new long[] {4L * REGION, 5L * REGION}, reads.get(1));
      assertReadsBack(in, 0, 3L * REGION, 4L * REGION, 5L * REGION);
    }
  }

  @Test
  void prefetchesOutsideABatchAreARequestEach() throws Exception {
    try (IndexInput in = mount(MODEL)) {
      in.prefetch(0, REGION);
      in.prefetch(2L * REGION, REGION);
      awaitNoFetch(cache);
      List<long[]> reads = store.reads();
      assertEquals(2, reads.size(), "requests: " + show(reads) + " seed " + seed);
    }
  }

  @Test
  void aReadInsideABatchQueuesWhatTheBatchHoldsFirst() throws Exception {
    try (IndexInput in = mount(MODEL)) {
      ExecutorService other = Executors.newSingleThreadExecutor();
      try (PrefetchBatch batch = PrefetchBatch.open()) {
        in.prefetch(4L * REGION, REGION);
        // another thread waiting for the held bytes is served once this thread reads (and so queues them)
        IndexInput clone = in.clone();
        Future<Byte> waiting = other.submit(() -> {
          clone.seek(4L * REGION + 7);
          return clone.readByte();
        });
        assertReadsBack(in, 10, 20); // a miss on this thread: it must not wait behind what it holds back
        assertEquals(bytes[4 * REGION + 7], (byte) waiting.get());
      } finally {
        other.shutdown();
      }
      awaitNoFetch(cache);
      assertEquals(2, store.reads().size(), "requests: " + show(store.reads()) + " seed " + seed);
    }
  }

  @Test
  void batchesOnManyThreadsThroughACacheTooSmallForThemReadTheRightBytes() throws Exception {
    // bridged requests, carried-on fills and eviction at once: a cache of 8 regions, files of 32, threads that batch
    // prefetches of random ranges and read random ranges back
    try (IndexInput in = mountSmall(MODEL)) {
      ExecutorService threads = Executors.newFixedThreadPool(4);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
          long threadSeed = seed + t;
          IndexInput mine = in.clone();
          done.add(threads.submit(() -> {
            Random random = new Random(threadSeed);
            for (int round = 0; round < 40; round++) {
              try (PrefetchBatch batch = PrefetchBatch.open()) {
                for (int k = 0; k < 3; k++) {
                  long from = random.nextInt(LENGTH - REGION);
                  mine.prefetch(from, 1 + random.nextInt(REGION));
                }
              }
              for (int k = 0; k < 3; k++) {
                long from = random.nextInt(LENGTH - 5000);
                assertReadsBack(mine, from, from + 1 + random.nextInt(5000));
              }
            }
            return null;
          }));
        }
        for (Future<?> f : done) {
          f.get();
        }
      } finally {
        threads.shutdown();
      }
    }
  }

  @Test
  void aSegmentsColumnsAndItsHitsBlocksAreOneRequestEach() throws Exception {
    // a Lucene index of one segment: two numeric columns, and stored fields in blocks of a few KB
    Path local = tmp.resolve("local");
    try (Directory dir = FSDirectory.open(local);
        IndexWriter w = new IndexWriter(dir, new IndexWriterConfig().setUseCompoundFile(false))) {
      Random random = new Random(seed);
      for (int d = 0; d < 20_000; d++) {
        Document doc = new Document();
        doc.add(new NumericDocValuesField("a", random.nextLong()));
        doc.add(new NumericDocValuesField("b", random.nextLong()));
        doc.add(new StoredField("body", "document " + d + " " + random.nextLong()));
        w.addDocument(doc);
      }
      w.forceMerge(1);
    }
    SnapshotManifest manifest = snapshotAndMount(local);
    try (DirectoryReader reader = DirectoryReader.open(dir)) {
      LeafReader leaf = reader.leaves().get(0).reader();
      String dvd = blobOf(manifest, ".dvd");
      String fdt = blobOf(manifest, ".fdt");
      awaitNoFetch(cache);
      store.clear();
      ColumnPrefetch.prefetch(leaf, "a", "b"); // two columns, each of several regions: one request
      awaitNoFetch(cache);
      List<long[]> columns = store.readsOf(dvd);
      assertEquals(1, columns.size(), "requests for the columns: " + show(columns) + " seed " + seed);
      assertTrue(columns.get(0)[1] - columns.get(0)[0] > 2L * REGION, "both columns: " + show(columns));

      store.clear();
      StoredFields stored = leaf.storedFields();
      int[] hits = {100, 2_000, 2_300, 2_900}; // blocks close together, and none cached yet
      try (PrefetchBatch batch = PrefetchBatch.open()) {
        for (int doc : hits) {
          stored.prefetch(doc);
        }
      }
      awaitNoFetch(cache);
      List<long[]> blocks = store.readsOf(fdt);
      assertEquals(1, blocks.size(), "requests for the hits' blocks: " + show(blocks) + " seed " + seed);
      store.clear();
      for (int doc : hits) {
        assertTrue(stored.document(doc).get("body").startsWith("document " + doc + " "));
      }
      assertEquals(List.of(), store.readsOf(fdt), "the hits are read from the cache");
    }
  }

  @Test
  void aFewHitsValuesOfOneColumnAreOneRequest() throws Exception {
    // one numeric column of random longs (8 bytes a document), and four hits whose values lie a few chunks apart:
    // fewer than would fetch the column whole, and each read would start a fill of its own
    Path local = tmp.resolve("local");
    long[] values = new long[20_000];
    try (Directory dir = FSDirectory.open(local);
        IndexWriter w = new IndexWriter(dir, new IndexWriterConfig().setUseCompoundFile(false))) {
      Random random = new Random(seed);
      for (int d = 0; d < values.length; d++) {
        Document doc = new Document();
        values[d] = random.nextLong();
        doc.add(new NumericDocValuesField("ts", values[d]));
        w.addDocument(doc);
      }
      w.forceMerge(1);
    }
    SnapshotManifest manifest = snapshotAndMount(local);
    try (DirectoryReader reader = DirectoryReader.open(dir)) {
      LeafReaderContext leaf = reader.leaves().get(0);
      String dvd = blobOf(manifest, ".dvd");
      awaitNoFetch(cache);
      store.clear();
      // values in three regions of the column (a request each, read by read), with gaps under the model's
      int[] hits = {1_000, 9_000, 17_000, 19_000};
      Map<Integer, Long> seen = new java.util.TreeMap<>();
      SimpleCollector values0 = new SimpleCollector() {
        NumericDocValues ts;

        @Override
        protected void doSetNextReader(LeafReaderContext context) throws IOException {
          ts = context.reader().getNumericDocValues("ts");
        }

        @Override
        public void collect(int doc) throws IOException {
          assertTrue(ts.advanceExact(doc));
          seen.put(doc, ts.longValue());
        }

        @Override
        public ScoreMode scoreMode() {
          return ScoreMode.COMPLETE_NO_SCORES;
        }
      };
      HitPrefetchingCollector<SimpleCollector> prefetching = HitPrefetchingCollector.wrap(values0, List.of("ts"), false);
      LeafCollector leafCollector = prefetching.getLeafCollector(leaf);
      for (int doc : hits) {
        leafCollector.collect(doc);
      }
      leafCollector.finish();
      awaitNoFetch(cache);
      List<long[]> reads = store.readsOf(dvd);
      assertEquals(1, reads.size(), "requests for the hits' values: " + show(reads) + " seed " + seed);
      for (int doc : hits) {
        assertEquals(values[doc], seen.get(doc), "doc " + doc + ", seed " + seed);
      }
      assertEquals(hits.length, seen.size());
    }
  }

  /** Opens a one-segment index of {@code docs} documents, a "sparse" numeric column on every other one, cold. */
  private DirectoryReader sparseColumn(int docs, long[] values) throws Exception {
    Path local = tmp.resolve("local");
    try (Directory dir = FSDirectory.open(local);
        IndexWriter w = new IndexWriter(dir, new IndexWriterConfig().setUseCompoundFile(false))) {
      Random random = new Random(seed);
      for (int d = 0; d < docs; d++) {
        Document doc = new Document();
        if (d % 2 == 0) {
          values[d] = random.nextLong();
          doc.add(new NumericDocValuesField("sparse", values[d]));
        }
        w.addDocument(doc);
      }
      w.forceMerge(1);
    }
    // a model that reads across gaps of up to 1 MB: how far apart the pieces of one level lie depends on how the codec
    // lays the column out (Lucene 10.3 and 10.6 differ), and these tests count levels, not the model's gaps
    SnapshotManifest manifest = snapshotAndMount(local, StorePolicy.builder().firstByteLatency(Duration.ofSeconds(1))
        .readThroughput(1_000_000).build());
    dvdBlob = blobOf(manifest, ".dvd");
    DirectoryReader reader = DirectoryReader.open(dir);
    awaitNoFetch(cache);
    store.clear();
    return reader;
  }

  private String dvdBlob;

  /** Collects {@code hits} of the segment through a HitPrefetchingCollector of the "sparse" column; their values. */
  private static Map<Integer, Long> collectSparse(LeafReaderContext leaf, int... hits) throws IOException {
    Map<Integer, Long> seen = new java.util.TreeMap<>();
    SimpleCollector values = new SimpleCollector() {
      NumericDocValues sparse;

      @Override
      protected void doSetNextReader(LeafReaderContext context) throws IOException {
        sparse = context.reader().getNumericDocValues("sparse");
      }

      @Override
      public void collect(int doc) throws IOException {
        if (sparse.advanceExact(doc)) {
          seen.put(doc, sparse.longValue());
        }
      }

      @Override
      public ScoreMode scoreMode() {
        return ScoreMode.COMPLETE_NO_SCORES;
      }
    };
    LeafCollector collector = HitPrefetchingCollector.wrap(values, List.of("sparse"), false).getLeafCollector(leaf);
    for (int doc : hits) {
      collector.collect(doc);
    }
    collector.finish();
    return seen;
  }

  @Test
  void aFewHitsValuesOfASparseColumnAreOneRequest() throws Exception {
    // a column on every other document (its values found through the set of documents that have one: a level or
    // more before them, as the codec lays it out), the hits' values 80,000 bytes apart, in four regions: each read
    // made its own request at each level (4 for the values alone); now each level is one request
    long[] values = new long[600_000];
    try (DirectoryReader reader = sparseColumn(values.length, values)) {
      int[] hits = {200_000, 220_000, 240_000, 260_000};
      ReadCost cost = new ReadCost();
      Map<Integer, Long> seen;
      try (ReadCost.Scope work = ReadCost.attach(cost)) {
        seen = collectSparse(reader.leaves().get(0), hits);
      }
      awaitNoFetch(cache);
      List<long[]> reads = store.readsOf(dvdBlob);
      assertTrue(cost.waves() >= 1 && reads.size() <= cost.waves(), "one request a level: " + reads.size()
          + " requests in " + cost.waves() + " dependent waves: " + show(reads) + " seed " + seed);
      for (int doc : hits) {
        assertEquals(values[doc], seen.get(doc), "doc " + doc + ", seed " + seed);
      }
    }
  }

  @Test
  void whatItsWorkIsFetchingAProbeWaitsForAndGoesOnFrom() throws Exception {
    // in a search's work that has read a value amid the hits' already (the probe does not read what its work is
    // fetching: it waits for that, then goes on), the hits' values are one request (2 when each read made its own)
    long[] values = new long[600_000];
    try (DirectoryReader reader = sparseColumn(values.length, values);
        ReadCost.Scope work = ReadCost.attach(new ReadCost())) {
      LeafReaderContext leaf = reader.leaves().get(0);
      NumericDocValues first = leaf.reader().getNumericDocValues("sparse");
      assertTrue(first.advanceExact(230_000)); // among the hits' documents: the same block of the set
      assertEquals(values[230_000], first.longValue());
      awaitNoFetch(cache);
      store.clear();
      int[] hits = {200_000, 220_000, 240_000, 260_000};
      Map<Integer, Long> seen = collectSparse(leaf, hits);
      awaitNoFetch(cache);
      List<long[]> reads = store.readsOf(dvdBlob);
      assertEquals(1, reads.size(), "the values in one request: " + show(reads) + " seed " + seed);
      for (int doc : hits) {
        assertEquals(values[doc], seen.get(doc), "doc " + doc + ", seed " + seed);
      }
    }
  }

  /**
   * Snapshots the index at {@code local} into a counting store (with {@link #MODEL}) and mounts it through a cache of
   * 64 MiB in regions of {@link #REGION}: sets {@link #store}, {@link #cache} and {@link #dir}; returns the manifest.
   */
  private SnapshotManifest snapshotAndMount(Path local) throws IOException {
    return snapshotAndMount(local, MODEL);
  }

  /** {@link #snapshotAndMount(Path)} with the store model {@code model}. */
  private SnapshotManifest snapshotAndMount(Path local, StorePolicy model) throws IOException {
    store = new CountingStore(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    SnapshotRepository repo = SnapshotRepository.open(model.apply(store));
    try (Directory source = FSDirectory.open(local)) {
      repo.createSnapshot("s", source);
    }
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(64L << 20).regionSize(REGION)
        .tailRegionSize(CHUNK).build();
    SnapshotManifest manifest = CachedManifests.read(repo, "s", cache);
    dir = BlobDirectory.open(repo, manifest, cache, "s");
    return manifest;
  }

  private static String blobOf(SnapshotManifest manifest, String extension) {
    for (FileEntry f : manifest.files()) {
      if (f.name().endsWith(extension)) {
        return f.blobName();
      }
    }
    throw new AssertionError("no " + extension + " in " + manifest.files());
  }

  private IndexInput mountSmall(StorePolicy policy) throws IOException {
    new Random(seed).nextBytes(bytes);
    store = new CountingStore(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    SnapshotManifest manifest = TestManifests.upload(store, "s", "s/", Map.of("data.bin", bytes), 0, CHUNK);
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(8L * REGION).regionSize(REGION)
        .tailRegionSize(CHUNK).build();
    dir = BlobDirectory.open(manifest, policy.apply(store), cache, "s");
    return dir.openInput("data.bin", IOContext.DEFAULT);
  }

  @Test
  void aReadCutShortByItsRegionsEndIsOneRequestWithWhatCarriesItOn() throws Exception {
    try (IndexInput in = mount(StorePolicy.builder().firstByteLatency(Duration.ZERO).build())) {
      // read on from the last page of a region: the fill reaches into the next region, in the same request
      long at = REGION - 100;
      assertReadsBack(in, at, at + 50);
      awaitNoFetch(cache);
      List<long[]> reads = store.reads();
      assertEquals(1, reads.size(), "requests: " + show(reads) + " seed " + seed);
      long[] only = reads.get(0);
      assertEquals(true, only[0] <= at && only[1] > REGION, "one request across the region's end: " + show(reads));
      store.clear();
      assertReadsBack(in, REGION, REGION + 1000);
      assertEquals(List.of(), store.reads(), "the next region came with it");
    }
  }
  @Test
  void aSliceNoLongerThanAFillIsFetchedWholeAtItsFirstMissAndALongerOneIsNot() throws Exception {
    try (IndexInput in = mount(MODEL)) {
      // read backwards, as an FST is: its last byte, then its first
      long start = 5L * REGION + 777;
      IndexInput small = in.slice("small", start, SMALL);
      assertEquals(bytes[(int) start + SMALL - 1], readAt(small, SMALL - 1));
      assertEquals(bytes[(int) start], readAt(small, 0));
      assertEquals(bytes[(int) start + SMALL / 2], readAt(small, SMALL / 2));
      awaitNoFetch(cache);
      List<long[]> reads = store.reads();
      assertEquals(1, reads.size(), "requests: " + show(reads) + " seed " + seed);
      assertTrue(reads.get(0)[0] <= start && reads.get(0)[1] >= start + SMALL, "all of it: " + show(reads));
      store.clear();
      // longer than a fill: a fill from each miss
      long far = 20L * REGION + 777;
      int length = 3 * BlobIndexInput.NORMAL_FILL;
      IndexInput large = in.slice("large", far, length);
      assertEquals(bytes[(int) far + length - 1], readAt(large, length - 1));
      assertEquals(bytes[(int) far], readAt(large, 0));
      awaitNoFetch(cache);
      assertEquals(2, store.reads().size(), "requests: " + show(store.reads()) + " seed " + seed);
    }
  }

  @Test
  void theSlicesOfAFileNoLongerThanAFillAreFetchedInOneRequest() throws Exception {
    mount(MODEL).close();
    try (IndexInput in = dir.openInput("small.bin", IOContext.DEFAULT)) {
      // a stored-fields index's two arrays, read one after the other: the second was fetched with the first
      IndexInput second = in.slice("second", 60_000, 30_000);
      IndexInput first = in.slice("first", 1_000, 40_000);
      assertEquals(bytes[60_000 + 29_999], readAt(second, 29_999));
      awaitNoFetch(cache);
      assertEquals(bytes[1_000], readAt(first, 0));
      assertEquals(bytes[SMALL - 1], readAt(in, SMALL - 1));
      List<long[]> reads = store.reads();
      assertEquals(1, reads.size(), "requests: " + show(reads) + " seed " + seed);
      assertArrayEquals(new long[] {0, SMALL}, reads.get(0), show(reads));
    }
  }

  private static byte readAt(IndexInput in, long position) throws IOException {
    in.seek(position);
    return in.readByte();
  }
}
