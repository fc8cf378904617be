/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.SnapshotOptions;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.snapshot.TestManifests;
import dev.permafrost.testutil.Waits;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.lucene.codecs.Codec;
import org.apache.lucene.codecs.FilterCodec;
import org.apache.lucene.codecs.PointsFormat;
import org.apache.lucene.codecs.PointsReader;
import org.apache.lucene.codecs.PointsWriter;
import org.apache.lucene.codecs.lucene90.Lucene90PointsReader;
import org.apache.lucene.codecs.lucene90.Lucene90PointsWriter;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.index.SegmentWriteState;
import org.apache.lucene.index.TieredMergePolicy;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.PointRangeQuery;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.util.bkd.BKDWriter;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ColumnPrefetch#prefetchPointsIndex}: a range that walks a segment's points tree has the tree's index
 * ({@code .kdi}) fetched when the search starts, so that the walk reads it without a request (a round trip of its own
 * after the query's terms, otherwise); a range the tree answers from its bounds (none of the points, or all of them
 * with every document holding one) fetches nothing; what the cache refuses is read directly for the search's work and
 * walked from there. One segment of increasing timestamps, as logs are, in files of its own; counts of store requests
 * on the index's blob, never of time; every count checked against the local index's.
 */
class PointsIndexFetchTest {
  private static final int DOCS = 100_000;
  private static final int REGION = 4 << 10;
  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private long first;
  private long last;
  private FetchOnceTest.RecordingBlobStore store;
  private SnapshotManifest manifest;
  /** The points index's blob. */
  private String kdi;
  private Directory local;

  @BeforeEach
  void index() throws IOException {
    Random random = new Random(seed);
    local = FSDirectory.open(tmp.resolve("local"));
    TieredMergePolicy merges = new TieredMergePolicy();
    merges.setNoCFSRatio(0); // .kdi in a blob of its own, so that its requests can be told
    // leaves of 16 points, not 512: an index of thousands of leaves (tens of KB), past what opening the reader reads
    // of it, from 100,000 documents; read back by the default codec, whose reader takes any leaf size
    Codec small = new FilterCodec(Codec.getDefault().getName(), Codec.getDefault()) {
      @Override
      public PointsFormat pointsFormat() {
        return new PointsFormat() {
          @Override
          public PointsWriter fieldsWriter(SegmentWriteState state) throws IOException {
            return new Lucene90PointsWriter(state, 16, BKDWriter.DEFAULT_MAX_MB_SORT_IN_HEAP);
          }

          @Override
          public PointsReader fieldsReader(SegmentReadState state) throws IOException {
            return new Lucene90PointsReader(state);
          }
        };
      }
    };
    try (IndexWriter w = new IndexWriter(local, new IndexWriterConfig().setCodec(small).setUseCompoundFile(false)
        .setMergePolicy(merges))) {
      long t = 1_700_000_000_000L;
      first = t;
      for (int i = 0; i < DOCS; i++) {
        t += random.nextInt(1000);
        Document d = new Document();
        d.add(new LongPoint("t", t));
        d.add(new NumericDocValuesField("t", t));
        w.addDocument(d);
      }
      last = t;
      w.forceMerge(1);
    }
    assertTrue(List.of(local.listAll()).contains("_0.kdi"), "one segment, not compound: " + List.of(local.listAll()));
    store = new FetchOnceTest.RecordingBlobStore(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    // the manifest keeps what opening the reader reads (the index's header): the index itself is read by a walk only;
    // and no file whole (a points index this small is kept whole by default, and never costs a request)
    SnapshotRepository.open(store).createSnapshot("s", local, SnapshotOptions.DEFAULTS.withKeepWholeLimits(0,
        SnapshotOptions.DEFAULTS.metadataKeepWholeLimit()));
    manifest = SnapshotRepository.open(store).readManifest("s");
    kdi = manifest.file("_0.kdi").blobName();
  }

  private SharedRegionCache cache(String name, long bytes, EvictionPolicy policy) throws IOException {
    SharedRegionCache.Builder b = SharedRegionCache.builder().path(tmp.resolve(name)).size(bytes).regionSize(REGION)
        .tailRegionSize(REGION);
    return (policy == null ? b : b.evictionPolicy(policy)).build();
  }

  private static PointRangeQuery range(long from, long to) {
    return (PointRangeQuery) LongPoint.newRangeQuery("t", from, to);
  }

  /** The requests for the points index since the store's record was cleared. */
  private int indexRequests() {
    return store.reads.getOrDefault(kdi, List.of()).size();
  }

  /** Counts {@code range} in {@code reader}, checked against the local index's count. */
  private void count(DirectoryReader reader, PointRangeQuery range) throws IOException {
    try (DirectoryReader expected = DirectoryReader.open(local)) {
      assertEquals(new IndexSearcher(expected).count(range), new IndexSearcher(reader).count(range), "seed " + seed);
    }
  }

  @Test
  void aRangeThatWalksTheTreeHasItsIndexFetchedWhenTheSearchStarts() throws Exception {
    PointRangeQuery range = range(first + (last - first) / 3, first + (last - first) / 2);
    try (SharedRegionCache cache = cache("plain", 64 << 20, null);
        BlobDirectory dir = BlobDirectory.open(manifest, store, cache, "s");
        DirectoryReader reader = DirectoryReader.open(dir)) {
      store.reads.clear();
      count(reader, range);
      assertEquals(1, indexRequests(), "without it the walk fetches the index itself, seed " + seed);
    }
    try (SharedRegionCache cache = cache("prefetched", 64 << 20, null);
        BlobDirectory dir = BlobDirectory.open(manifest, store, cache, "s");
        DirectoryReader reader = DirectoryReader.open(dir)) {
      store.reads.clear();
      ColumnPrefetch.prefetchPointsIndex(reader, range);
      Waits.awaitNoFetch(cache);
      assertEquals(1, indexRequests(), "fetched whole in one request, seed " + seed);
      count(reader, range);
      assertEquals(1, indexRequests(), "and walked with no request of its own, seed " + seed);
      ColumnPrefetch.prefetchPointsIndex(reader, range);
      Waits.awaitNoFetch(cache);
      assertEquals(1, indexRequests(), "once cached, nothing is asked for again");
    }
  }

  @Test
  void aRangeTheTreeAnswersFromItsBoundsFetchesNothing() throws Exception {
    try (SharedRegionCache cache = cache("bounds", 64 << 20, null);
        BlobDirectory dir = BlobDirectory.open(manifest, store, cache, "s");
        DirectoryReader reader = DirectoryReader.open(dir)) {
      store.reads.clear();
      for (PointRangeQuery range : List.of(range(first - 10, last + 10), range(last + 1, last + 100),
          range(first - 100, first - 1))) {
        ColumnPrefetch.prefetchPointsIndex(reader, range);
        Waits.awaitNoFetch(cache);
        assertEquals(Map.of(), store.reads, range + " is answered from the tree's bounds: nothing to fetch");
        count(reader, range);
      }
      assertEquals(0, indexRequests(), "nor did the searches walk it");
    }
  }

  /**
   * A cache full of another file's regions, worth more than any of the index's: the points index is read directly
   * from the store for the search's work, in one request, and the walk reads it there.
   */
  @Test
  void anIndexTheCacheRefusesIsReadDirectlyForTheSearchAndWalkedFromThere() throws Exception {
    byte[] other = new byte[16 * REGION];
    new Random(seed + 1).nextBytes(other);
    SnapshotManifest others = TestManifests.upload(store, "o", "o-", Map.of("o.bin", other), 0);
    DirectReadPastAdmittedRegionTest.Favouring policy = new DirectReadPastAdmittedRegionTest.Favouring();
    PointRangeQuery range = range(first + (last - first) / 3, first + (last - first) / 2);
    try (SharedRegionCache cache = cache("tiny", 16 * REGION, policy);
        BlobDirectory fill = BlobDirectory.open(others, store, cache, "o");
        IndexInput filler = fill.openInput("o.bin", IOContext.DEFAULT)) {
      fill.openedFile("o.bin").cachedBlob.offerWhole(other); // the cache is full, and admits none of the index
      assertEquals(cache.stats().regions(), cache.stats().regionsInUse(), cache.stats().toString());
      try (BlobDirectory dir = BlobDirectory.open(manifest, store, cache, "s");
          DirectoryReader reader = DirectoryReader.open(dir)) {
        readThroughARefusingCache(cache, reader, range);
      }
    }
  }

  /** Within a search's work: the index read directly in one request, then walked from there. */
  private void readThroughARefusingCache(SharedRegionCache cache, DirectoryReader reader, PointRangeQuery range)
      throws Exception {
    store.reads.clear();
    ReadCost work = new ReadCost();
    try (ReadCost.Scope reading = ReadCost.attach(work)) {
      ColumnPrefetch.prefetchPointsIndex(reader, range);
      Waits.awaitNoFetch(cache);
      assertEquals(1, indexRequests(), "read directly, in one request, seed " + seed);
      count(reader, range);
      assertEquals(1, indexRequests(), "the walk read it there, seed " + seed);
    } finally {
      work.settle();
    }
  }
}
