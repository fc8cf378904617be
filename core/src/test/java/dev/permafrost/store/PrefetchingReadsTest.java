/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.CountingBlobStore;
import dev.permafrost.blob.FaultInjectingBlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.snapshot.CachedManifests;
import dev.permafrost.snapshot.SnapshotOptions;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.testutil.Waits;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedSetDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FilterDirectoryReader;
import org.apache.lucene.index.FilterLeafReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.SimpleCollector;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopScoreDocCollector;
import org.apache.lucene.search.TopScoreDocCollectorManager;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ColumnPrefetch} and {@link HitPrefetchingCollector} over a mounted snapshot with small regions: what they
 * fetch is what is then read (no further request), the answers are the local index's, and a few hits' values cost
 * fewer dependent round trips than reading them one after another.
 */
class PrefetchingReadsTest {
  private static final int DOCS = 30_000;
  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private final Random random = new Random(seed);
  private Directory local;
  private CountingBlobStore store;
  private SnapshotRepository repo;
  private SharedRegionCache cache;

  @BeforeEach
  void setUp() throws IOException {
    local = FSDirectory.open(tmp.resolve("local"));
    try (IndexWriter w = new IndexWriter(local, new IndexWriterConfig())) {
      for (int i = 0; i < DOCS; i++) {
        Document d = new Document();
        d.add(new NumericDocValuesField("n", random.nextLong())); // 8 bytes a value: a column of many regions
        d.add(new SortedSetDocValuesField("s", new BytesRef("term-" + random.nextInt(500))));
        d.add(new StringField("tag", i % 3_001 == 7 ? "rare" : "common", Field.Store.NO));
        d.add(new StringField("every", i % 1_000 == 500 ? "thousandth" : "other", Field.Store.NO));
        d.add(new TextField("body", "word" + random.nextInt(50) + " word" + random.nextInt(50), Field.Store.YES));
        d.add(new StoredField("id", i));
        byte[] b = new byte[128]; // a wide column: the rare hits' values are far apart, more than a fill's reach
        random.nextBytes(b);
        d.add(new BinaryDocValuesField("b", new BytesRef(b)));
        w.addDocument(d);
      }
      w.forceMerge(1);
    }
    store = new CountingBlobStore(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    repo = SnapshotRepository.open(store);
    repo.createSnapshot("snap", local);
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(64 << 20).regionSize(32 << 10)
        .tailRegionSize(32 << 10).build();
  }

  @AfterEach
  void tearDown() throws IOException {
    cache.close();
    local.close();
  }

  @Test
  void prefetchedColumnsAreReadWithoutAnotherRequestAndEqualTheLocalIndex() throws Exception {
    try (BlobDirectory dir = BlobDirectory.open(repo, CachedManifests.read(repo, "snap", cache), cache, "snap");
        DirectoryReader reader = DirectoryReader.open(dir);
        DirectoryReader expected = DirectoryReader.open(local)) {
      LeafReader leaf = reader.leaves().get(0).reader();
      store.reset();
      // a field without doc values and a missing one are skipped
      ColumnPrefetch.prefetch(leaf, "n", "s", "body", "no-such-field");
      awaitFills();
      long prefetched = store.readRequests.get();
      // the columns span many regions of one blob, close together: one request (the chunk tables are in the manifest)
      assertEquals(1, prefetched, "the columns, fetched ahead, seed " + seed);
      long[] values = new long[DOCS];
      long[] ords = new long[DOCS];
      NumericDocValues n = leaf.getNumericDocValues("n");
      SortedSetDocValues s = leaf.getSortedSetDocValues("s");
      for (int doc = 0; doc < DOCS; doc++) {
        assertTrue(n.advanceExact(doc) && s.advanceExact(doc));
        values[doc] = n.longValue();
        ords[doc] = s.nextOrd();
      }
      assertEquals(prefetched, store.readRequests.get(), "every value and ordinal was fetched ahead, seed " + seed);
      LeafReader want = expected.leaves().get(0).reader();
      NumericDocValues wn = want.getNumericDocValues("n");
      SortedSetDocValues ws = want.getSortedSetDocValues("s");
      for (int doc = 0; doc < DOCS; doc++) {
        assertTrue(wn.advanceExact(doc) && ws.advanceExact(doc));
        assertEquals(wn.longValue(), values[doc], "doc " + doc + ", seed " + seed);
        assertEquals(ws.lookupOrd(ws.nextOrd()), s.lookupOrd(ords[doc]), "doc " + doc + ", seed " + seed);
      }
    }
  }

  @Test
  void aColumnTheCacheDoesNotAdmitIsReadInOneRequestAndEqualsTheLocalIndex() throws Exception {
    BytesRef[] want = localBinaryColumn();
    long asItGoes = 0;
    for (long budget : new long[] {0, 64 << 20}) {
      // two regions, all taken by what readers waited for (the manifest, the files read at open, stored fields):
      // a prefetched column is not admitted
      try (SharedRegionCache tiny = SharedRegionCache.builder().path(tmp.resolve("tiny-" + budget)).size(2 * (32 << 10))
          .regionSize(32 << 10).tailRegionSize(32 << 10).directReadHeapBytes(budget).build()) {
        // read in a method of its own: once it returns, no frame of this one refers to the column's inputs
        long waves = readBinaryColumnThrough(tiny, want, budget);
        if (budget == 0) {
          asItGoes = waves;
          // read directly as the reader reaches it, a stretch growing from 128 KiB: one request after another
          assertTrue(waves >= 4, "without heap for it the 3.8 MB column is read as the reader goes: " + waves);
        } else {
          // the column's direct read, sent before the reader needs it (its chunk table is in the manifest)
          assertTrue(waves <= 2 && waves < asItGoes, "what the cache did not admit is read in one request, ahead: "
              + waves + " waves against " + asItGoes + " as the reader goes, seed " + seed);
        }
        assertBudgetGivenBack(tiny, budget);
      }
    }
  }

  /** Column "b" of the local index (128 random bytes a document), by document. */
  private BytesRef[] localBinaryColumn() throws IOException {
    BytesRef[] values = new BytesRef[DOCS];
    try (DirectoryReader expected = DirectoryReader.open(local)) {
      BinaryDocValues b = expected.leaves().get(0).reader().getBinaryDocValues("b");
      for (int doc = 0; doc < DOCS; doc++) {
        assertTrue(b.advanceExact(doc));
        values[doc] = BytesRef.deepCopyOf(b.binaryValue());
      }
    }
    return values;
  }

  /**
   * Prefetches column "b" through {@code tiny}, reads it all and returns the waves of dependent requests that took
   * (outside a piece of work's scope when it ends, so that only the cleaner gives the heap back).
   */
  private long readBinaryColumnThrough(SharedRegionCache tiny, BytesRef[] want, long budget) throws IOException {
    try (BlobDirectory dir = BlobDirectory.open(repo, CachedManifests.read(repo, "snap", tiny), tiny, "snap");
        DirectoryReader reader = DirectoryReader.open(dir)) {
      fillWithStoredFields(dir);
      LeafReader leaf = reader.leaves().get(0).reader();
      store.reset();
      ReadCost cost = new ReadCost(); // counts waves; never settled here
      try (ReadCost.Scope s = ReadCost.attach(cost)) {
        ColumnPrefetch.prefetch(leaf, "b");
        BinaryDocValues b = leaf.getBinaryDocValues("b");
        for (int doc = 0; doc < DOCS; doc++) {
          assertTrue(b.advanceExact(doc));
          assertEquals(want[doc], b.binaryValue(), "doc " + doc + ", budget " + budget + ", seed " + seed);
        }
      }
      if (budget > 0) {
        assertTrue(tiny.directReadBudget.available() < budget, "its bytes are counted while the column is read");
      }
      return cost.waves();
    }
  }

  @Test
  void aColumnReadDirectlyForAWorkGivesItsHeapBackWhenTheWorkSettlesSoTheNextWorkReadsItDirectlyToo() throws Exception {
    long[] want = localColumn();
    long taken;
    try (SharedRegionCache roomy = tinyCache("roomy", 64 << 20)) {
      taken = (64 << 20) - readColumnInWork(roomy, want, 64 << 20)[1];
    }
    assertTrue(taken > 4 * (32 << 10), "the column is read directly, most of it: " + taken + " bytes");
    // room for one read of the column, not two: the second work has it only if the first gave it back
    long budget = taken + taken / 2;
    try (SharedRegionCache tiny = tinyCache("tiny", budget)) {
      long[] first = readColumnInWork(tiny, want, budget);
      assertEquals(budget, first[2], "the first work's column heap is back once it settled, seed " + seed);
      long[] second = readColumnInWork(tiny, want, budget);
      assertTrue(second[0] <= first[0], "the second work reads the column directly too: " + second[0]
          + " requests against the first's " + first[0] + ", seed " + seed);
      assertEquals(budget, second[2]);
    }
  }

  private SharedRegionCache tinyCache(String name, long budget) throws IOException {
    // two regions, all taken by what readers waited for: a prefetched column is not admitted
    return SharedRegionCache.builder().path(tmp.resolve(name)).size(2 * (32 << 10)).regionSize(32 << 10)
        .tailRegionSize(32 << 10).directReadHeapBytes(budget).build();
  }

  /**
   * Prefetches and reads column "n" through {@code tiny} in a piece of work ({@link ReadCost}), keeping the reader
   * and the column's iterator referenced until after the work settles (so the garbage collector cannot be what gives
   * the heap back); returns the requests the read took, the budget left before the work settled and after.
   */
  private long[] readColumnInWork(SharedRegionCache tiny, long[] want, long budget) throws IOException {
    try (BlobDirectory dir = BlobDirectory.open(repo, CachedManifests.read(repo, "snap", tiny), tiny, "snap");
        DirectoryReader reader = DirectoryReader.open(dir)) {
      fillWithStoredFields(dir);
      LeafReader leaf = reader.leaves().get(0).reader();
      store.reset();
      ReadCost work = new ReadCost();
      NumericDocValues n;
      try (ReadCost.Scope s = ReadCost.attach(work)) {
        ColumnPrefetch.prefetch(leaf, "n");
        n = leaf.getNumericDocValues("n");
        for (int doc = 0; doc < DOCS / 2; doc++) {
          assertTrue(n.advanceExact(doc));
          assertEquals(want[doc], n.longValue(), "doc " + doc + ", seed " + seed);
        }
      }
      long requests = store.readRequests.get();
      long before = tiny.directReadBudget.available();
      work.settle();
      long after = tiny.directReadBudget.available();
      for (int doc = DOCS / 2; doc < DOCS; doc++) { // the released column's input reads on the usual way
        assertTrue(n.advanceExact(doc));
        assertEquals(want[doc], n.longValue(), "doc " + doc + " after the work settled, seed " + seed);
      }
      return new long[] {requests, before, after};
    }
  }

  /** Column "n" of the local index, by document. */
  private long[] localColumn() throws IOException {
    long[] values = new long[DOCS];
    try (DirectoryReader expected = DirectoryReader.open(local)) {
      NumericDocValues n = expected.leaves().get(0).reader().getNumericDocValues("n");
      for (int doc = 0; doc < DOCS; doc++) {
        assertTrue(n.advanceExact(doc));
        values[doc] = n.longValue();
      }
    }
    return values;
  }

  /** Reads every stored-fields file whole: what a reader waited for, which the cache keeps over a prefetch. */
  private static void fillWithStoredFields(Directory dir) throws IOException {
    for (String name : dir.listAll()) {
      if (name.endsWith(".fdt")) {
        try (var in = dir.openInput(name, IOContext.DEFAULT)) {
          in.readBytes(new byte[(int) in.length()], 0, (int) in.length());
        }
      }
    }
  }

  private static void assertBudgetGivenBack(SharedRegionCache cache, long budget) throws InterruptedException {
    // read outside a piece of work, the bytes are given back once nothing refers to them: a state to wait for, with a
    // collection asked for at each look (the cleaner then gives them back on its own thread)
    Waits.await("the heap of the column's read to be given back", () -> {
      if (cache.directReadBudget.available() == budget) {
        return true;
      }
      System.gc();
      return false;
    });
    assertEquals(budget, cache.directReadBudget.available(), "the heap of the column's read is given back");
  }

  @Test
  void aColumnReadDirectlyFromTheStoreThatFailsIsReadAgainTheUsualWay() throws Exception {
    long[] want = localColumn();
    FaultInjectingBlobStore faulty =
        new FaultInjectingBlobStore(FileSystemBlobStore.open(tmp.resolve("repo"), false), seed);
    SnapshotRepository flaky = SnapshotRepository.open(faulty);
    long budget = 64 << 20;
    try (SharedRegionCache tiny = SharedRegionCache.builder().path(tmp.resolve("tiny-flaky")).size(2 * (32 << 10))
        .regionSize(32 << 10).tailRegionSize(32 << 10).directReadHeapBytes(budget).build();
        BlobDirectory dir = BlobDirectory.open(flaky, CachedManifests.read(flaky, "snap", tiny), tiny, "snap");
        DirectoryReader reader = DirectoryReader.open(dir)) {
      fillWithStoredFields(dir);
      LeafReader leaf = reader.leaves().get(0).reader();
      // every response of the index's blob comes back with a byte flipped (its chunk table is in the manifest)
      faulty.targets(name -> !name.endsWith(".crc32c-32k")).flipRate(1);
      ColumnPrefetch.prefetch(leaf, "n");
      assertTrue(tiny.directReadBudget.available() < budget, "the column is read directly from the store");
      NumericDocValues n = leaf.getNumericDocValues("n");
      int failures = 0;
      for (int doc = 0; doc < DOCS; doc++) {
        try {
          assertTrue(n.advanceExact(doc));
          assertEquals(want[doc], n.longValue(), "a value served while the store flips bytes, seed " + seed);
        } catch (IOException | RuntimeException e) { // Lucene's packed readers wrap what a read throws
          Throwable io = e instanceof IOException ? e : e.getCause();
          assertTrue(io instanceof IOException && io.getMessage().contains("checksum mismatch"), String.valueOf(e));
          failures++;
        }
      }
      assertTrue(failures > 0, "wrong bytes are not served, seed " + seed);
      assertTrue(faulty.flips.get() > 0, "the store flipped bytes");
      faulty.heal();
      // the same doc values, through the same input: the failed read is not served again, the column is read anew
      for (int doc = 0; doc < DOCS; doc++) {
        assertTrue(n.advanceExact(doc));
        assertEquals(want[doc], n.longValue(), "doc " + doc + " after the failure, seed " + seed);
      }
    }
  }

  @Test
  void theColumnsOfEverySegmentNamedInOneCallAreAllReadDirectlyFromTheStore() throws Exception {
    Directory segmented = FSDirectory.open(tmp.resolve("segmented"));
    int segments = 3;
    long[] want = new long[DOCS];
    try (IndexWriter w = new IndexWriter(segmented, new IndexWriterConfig().setMergePolicy(
        NoMergePolicy.INSTANCE))) {
      for (int i = 0; i < DOCS; i++) {
        Document d = new Document();
        want[i] = random.nextLong();
        d.add(new NumericDocValuesField("n", want[i]));
        d.add(new StoredField("id", i));
        w.addDocument(d);
        if ((i + 1) % (DOCS / segments) == 0) {
          w.commit();
        }
      }
    }
    repo.createSnapshot("segmented", segmented);
    segmented.close();
    long budget = 64 << 20;
    long[] requests = new long[2];
    for (int oneCall = 0; oneCall < 2; oneCall++) {
      try (SharedRegionCache tiny = SharedRegionCache.builder().path(tmp.resolve("tiny-segmented-" + oneCall))
          .size(2 * (32 << 10)).regionSize(32 << 10).tailRegionSize(32 << 10).directReadHeapBytes(budget).build()) {
        requests[oneCall] = readSegmentsThrough(tiny, want, segments, oneCall == 1);
        assertBudgetGivenBack(tiny, budget);
      }
    }
    // one call: per segment one direct read, and at most one region the cache had room for (the chunk tables are in
    // the manifest). A call
    // forgets the direct reads of the call before it: a call per segment made up front leaves only the last
    // segment's in hand, and the others' columns are read again region by region unless their reads are still
    // alive for their blobs (not collected yet), so it is never cheaper
    assertTrue(requests[1] <= 2 * segments, "one call for every segment: " + requests[1] + " requests, seed " + seed);
    assertTrue(requests[1] <= requests[0], "one call for every segment: " + requests[1] + " requests; a call per "
        + "segment: " + requests[0] + ", seed " + seed);
  }

  /**
   * Prefetches "n" in every segment (in one call, or a call per segment), then reads each segment's column; returns
   * the requests that took.
   */
  private long readSegmentsThrough(SharedRegionCache tiny, long[] want, int segments, boolean oneCall)
      throws IOException {
    try (BlobDirectory dir = BlobDirectory.open(repo, CachedManifests.read(repo, "segmented", tiny), tiny, "segmented");
        DirectoryReader reader = DirectoryReader.open(dir)) {
      assertEquals(segments, reader.leaves().size());
      fillWithStoredFields(dir);
      store.reset();
      if (oneCall) {
        ColumnPrefetch.prefetch(reader, List.of("n"));
      } else {
        for (LeafReaderContext leaf : reader.leaves()) {
          ColumnPrefetch.prefetch(leaf.reader(), List.of("n"));
        }
      }
      for (LeafReaderContext leaf : reader.leaves()) {
        NumericDocValues n = leaf.reader().getNumericDocValues("n");
        for (int doc = 0; doc < leaf.reader().maxDoc(); doc++) {
          assertTrue(n.advanceExact(doc));
          assertEquals(want[leaf.docBase + doc], n.longValue(), "doc " + (leaf.docBase + doc) + ", seed " + seed);
        }
      }
      return store.readRequests.get();
    }
  }

  @Test
  void aColumnWithAWarmSetsPiecesInsideCostsNoMoreRequestsToPrefetch() throws Exception {
    // the warm search reads scattered values: the manifest keeps dozens of small pieces inside the column
    repo.createSnapshot("warm", local, SnapshotOptions.DEFAULTS.withWarmSearches(List.of(
        searcher -> {
          NumericDocValues n = searcher.getIndexReader().leaves().get(0).reader().getNumericDocValues("n");
          for (int doc = 0; doc < DOCS; doc += DOCS / 40) {
            assertTrue(n.advanceExact(doc));
            n.longValue();
          }
        })));
    long pieces = CachedManifests.read(repo, "warm", cache).files().stream().mapToLong(f -> f.warmRanges().size()).sum()
        - CachedManifests.read(repo, "snap", cache).files().stream().mapToLong(f -> f.warmRanges().size()).sum();
    assertTrue(pieces > 20, "the warm set cuts the column into pieces: " + pieces);
    // one region holds the whole column, checksummed in 32 KiB chunks: cut around the pieces, a fetch per piece
    long[] requests = new long[2];
    for (int warm = 0; warm < 2; warm++) {
      requests[warm] = prefetchAndReadColumn(warm == 0 ? "snap" : "warm");
    }
    assertTrue(requests[1] <= requests[0], "the pieces inside the column cost no request of their own: " + requests[1]
        + " requests with the warm set, " + requests[0] + " without, seed " + seed);
  }

  /** Prefetches column "n" of {@code snapshot} on a cold cache of 1 MiB regions, reads it; returns the requests. */
  private long prefetchAndReadColumn(String snapshot) throws Exception {
    try (SharedRegionCache big = SharedRegionCache.builder().path(tmp.resolve("big-regions-" + snapshot))
        .size(64 << 20).regionSize(1 << 20).build();
        BlobDirectory dir = BlobDirectory.open(repo, CachedManifests.read(repo, snapshot, big), big, snapshot);
        DirectoryReader reader = DirectoryReader.open(dir);
        DirectoryReader expected = DirectoryReader.open(local)) {
      LeafReader leaf = reader.leaves().get(0).reader();
      store.reset();
      ColumnPrefetch.prefetch(leaf, "n");
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (big.filler().inFlight() > 0 && System.nanoTime() < until) {
        Thread.sleep(5);
      }
      long prefetched = store.readRequests.get();
      NumericDocValues n = leaf.getNumericDocValues("n");
      NumericDocValues want = expected.leaves().get(0).reader().getNumericDocValues("n");
      for (int doc = 0; doc < DOCS; doc++) {
        assertTrue(n.advanceExact(doc) && want.advanceExact(doc));
        assertEquals(want.longValue(), n.longValue(), "doc " + doc + ", " + snapshot + ", seed " + seed);
      }
      assertEquals(prefetched, store.readRequests.get(), "nothing more to fetch, " + snapshot + ", seed " + seed);
      return prefetched;
    }
  }

  @Test
  void manyHitsOfASegmentFetchTheirColumnWholeRatherThanAFillEach() throws Exception {
    Query spread = new TermQuery(new Term("every", "thousandth")); // 30 hits, 8 KB apart in a 240 KB column
    long[] want = localColumn();
    int[] waves = new int[2];
    for (int wrapped = 0; wrapped < 2; wrapped++) {
      // one thread for fetches readers wait for: read hit by hit, the column's fills come one after another
      try (SharedRegionCache big = SharedRegionCache.builder().path(tmp.resolve("hits-" + wrapped)).size(64 << 20)
          .regionSize(1 << 20).fetchThreads(1).build();
          BlobDirectory dir = BlobDirectory.open(repo, CachedManifests.read(repo, "snap", big), big, "snap");
          DirectoryReader reader = DirectoryReader.open(dir)) {
        IndexSearcher searcher = new IndexSearcher(reader);
        assertEquals(DOCS / 1_000, searcher.search(spread, 1).totalHits.value()); // terms and postings cached
        CollectorManager<NValues, List<Long>> values = NValues.manager();
        ReadCost cost = new ReadCost();
        List<Long> got;
        try (ReadCost.Scope s = ReadCost.attach(cost)) {
          got = wrapped == 1
              ? searcher.search(spread, HitPrefetchingCollector.manager(values, List.of("n"), false))
              : searcher.search(spread, values);
        }
        waves[wrapped] = cost.waves();
        assertEquals(DOCS / 1_000, got.size());
        for (int i = 0; i < got.size(); i++) {
          assertEquals(want[500 + 1_000 * i], got.get(i), "hit " + i + ", seed " + seed);
        }
      }
    }
    // the column fetched whole in one wave (the collector's probe reads only what the cache held before the search,
    // never what the search's own prefetches bring, so it decides the same way however fast they come back); hit by
    // hit, the values' fills follow the reads of the bytes a prefetch brought, a wave later at least
    assertTrue(waves[1] == 1 && waves[1] < waves[0], "the column fetched whole: " + waves[1] + " waves; hit by hit: "
        + waves[0] + ", seed " + seed);
  }

  /** Collects column "n" of every hit, in order. */
  private static final class NValues extends SimpleCollector {
    final List<Long> out = new ArrayList<>();
    private NumericDocValues n;

    static CollectorManager<NValues, List<Long>> manager() {
      return new CollectorManager<>() {
        @Override
        public NValues newCollector() {
          return new NValues();
        }

        @Override
        public List<Long> reduce(Collection<NValues> collectors) {
          List<Long> all = new ArrayList<>();
          collectors.forEach(c -> all.addAll(c.out));
          return all;
        }
      };
    }

    @Override
    protected void doSetNextReader(LeafReaderContext context) throws IOException {
      n = context.reader().getNumericDocValues("n");
    }

    @Override
    public void collect(int doc) throws IOException {
      assertTrue(n.advanceExact(doc));
      out.add(n.longValue());
    }

    @Override
    public ScoreMode scoreMode() {
      return ScoreMode.COMPLETE_NO_SCORES;
    }
  }

  @Test
  void withoutPrefetchTheSameReadsFetchAsTheyGo() throws Exception {
    try (BlobDirectory dir = BlobDirectory.open(repo, CachedManifests.read(repo, "snap", cache), cache, "snap");
        DirectoryReader reader = DirectoryReader.open(dir)) {
      LeafReader leaf = reader.leaves().get(0).reader();
      awaitFills();
      store.reset();
      ReadCost cost = new ReadCost();
      try (ReadCost.Scope s = ReadCost.attach(cost)) {
        NumericDocValues n = leaf.getNumericDocValues("n");
        for (int doc = 0; doc < DOCS; doc++) {
          assertTrue(n.advanceExact(doc));
          n.longValue();
        }
      }
      // each fill waited for before the next starts (they grow, and carry on into the next regions beside them)
      assertTrue(cost.waves() >= 2, "the column is fetched as it is read, a wave after another: " + cost.waves()
          + " waves, " + store.readRequests.get() + " requests");
    }
  }

  @Test
  void aFewHitsValuesAreFetchedTogetherAndCollectedAsWithoutTheWrapper() throws Exception {
    Query rare = new TermQuery(new Term("tag", "rare"));
    List<String> plain;
    ReadCost plainCost = new ReadCost();
    try (BlobDirectory dir = BlobDirectory.open(repo, CachedManifests.read(repo, "snap", cache), cache, "snap");
        DirectoryReader reader = DirectoryReader.open(dir)) {
      try (ReadCost.Scope s = ReadCost.attach(plainCost)) {
        plain = new IndexSearcher(reader).search(rare, ValuesCollector.manager());
      }
    }
    cache.clear();
    List<String> prefetched;
    ReadCost prefetchedCost = new ReadCost();
    try (BlobDirectory dir = BlobDirectory.open(repo, CachedManifests.read(repo, "snap", cache), cache, "snap");
        DirectoryReader reader = DirectoryReader.open(dir)) {
      try (ReadCost.Scope s = ReadCost.attach(prefetchedCost)) {
        prefetched = new IndexSearcher(reader).search(rare,
            HitPrefetchingCollector.manager(ValuesCollector.manager(), List.of("n", "s", "b", "tag"), true));
      }
    }
    List<String> expected;
    try (DirectoryReader reader = DirectoryReader.open(local)) {
      expected = new IndexSearcher(reader).search(rare, ValuesCollector.manager());
    }
    assertEquals(DOCS / 3_001 + 1, expected.size());
    assertEquals(expected, plain, "seed " + seed);
    assertEquals(expected, prefetched, "seed " + seed);
    assertTrue(prefetchedCost.waves() < plainCost.waves(), "the hits' values came together: " + prefetchedCost.waves()
        + " waves with the wrapper, " + plainCost.waves() + " without (" + prefetchedCost + " / " + plainCost + ")");
  }

  @Test
  void warmHitsAreProbedThroughOneIteratorAFieldNotOneAHit() throws Exception {
    Query every = new TermQuery(new Term("every", "thousandth")); // 30 hits, one batch, values all cached
    AtomicInteger opened = new AtomicInteger();
    List<String> got;
    try (BlobDirectory dir = BlobDirectory.open(repo, CachedManifests.read(repo, "snap", cache), cache, "snap");
        DirectoryReader reader = countingDocValues(DirectoryReader.open(dir), opened)) {
      IndexSearcher searcher = new IndexSearcher(reader);
      var manager = HitPrefetchingCollector.manager(ValuesCollector.manager(), List.of("n", "s", "b"), false);
      searcher.search(every, manager); // cold: fetches
      awaitFills();
      opened.set(0);
      got = searcher.search(every, manager);
    }
    List<String> expected;
    try (DirectoryReader reader = DirectoryReader.open(local)) {
      expected = new IndexSearcher(reader).search(every, ValuesCollector.manager());
    }
    assertEquals(DOCS / 1_000, expected.size());
    assertEquals(expected, got, "seed " + seed);
    // the probe's iterator for each of the 3 fields, and the collector's own: not 30 for each field
    assertEquals(2 * 3, opened.get(), "doc values opened for 30 warm hits of one segment");
  }

  /** {@code reader} with each call that opens a numeric, sorted-set or binary doc-values iterator counted. */
  private static DirectoryReader countingDocValues(DirectoryReader reader, AtomicInteger opened)
      throws IOException {
    return new FilterDirectoryReader(reader, new FilterDirectoryReader.SubReaderWrapper() {
      @Override
      public LeafReader wrap(LeafReader leaf) {
        return new FilterLeafReader(leaf) {
          @Override
          public NumericDocValues getNumericDocValues(String field) throws IOException {
            opened.incrementAndGet();
            return super.getNumericDocValues(field);
          }

          @Override
          public SortedSetDocValues getSortedSetDocValues(String field) throws IOException {
            opened.incrementAndGet();
            return super.getSortedSetDocValues(field);
          }

          @Override
          public BinaryDocValues getBinaryDocValues(String field) throws IOException {
            opened.incrementAndGet();
            return super.getBinaryDocValues(field);
          }

          @Override
          public CacheHelper getCoreCacheHelper() {
            return in.getCoreCacheHelper();
          }

          @Override
          public CacheHelper getReaderCacheHelper() {
            return in.getReaderCacheHelper();
          }
        };
      }
    }) {
      @Override
      protected DirectoryReader doWrapDirectoryReader(DirectoryReader in) {
        throw new UnsupportedOperationException("not reopened in this test");
      }

      @Override
      public CacheHelper getReaderCacheHelper() {
        return null;
      }
    };
  }

  @Test
  void scoredTopHitsAreTheSameThroughTheWrapperWhateverTheBatch() throws Exception {
    try (BlobDirectory dir = BlobDirectory.open(repo, CachedManifests.read(repo, "snap", cache), cache, "snap");
        DirectoryReader reader = DirectoryReader.open(dir);
        DirectoryReader want = DirectoryReader.open(local)) {
      IndexSearcher searcher = new IndexSearcher(reader);
      for (int round = 0; round < 20; round++) {
        Query query = new BooleanQuery.Builder()
            .add(new TermQuery(new Term("body", "word" + random.nextInt(50))), BooleanClause.Occur.SHOULD)
            .add(new TermQuery(new Term("body", "word" + random.nextInt(50))), BooleanClause.Occur.SHOULD)
            .build();
        int size = 1 + random.nextInt(20);
        int threshold = random.nextBoolean() ? 1 : Integer.MAX_VALUE; // skipping by score, or exact totals
        TopDocs expected = new IndexSearcher(want).search(query, new TopScoreDocCollectorManager(size, threshold));
        int batch = 1 + random.nextInt(100);
        TopDocs got = searcher.search(query, new CollectorManager<HitPrefetchingCollector<?>, TopDocs>() {
          final TopScoreDocCollectorManager in = new TopScoreDocCollectorManager(size, threshold);
          final List<TopScoreDocCollector> made = new ArrayList<>();

          @Override
          public HitPrefetchingCollector<?> newCollector() throws IOException {
            var c = in.newCollector();
            made.add(c);
            return HitPrefetchingCollector.wrap(c, List.of("n"), random.nextBoolean(), batch);
          }

          @Override
          public TopDocs reduce(Collection<HitPrefetchingCollector<?>> collectors) throws IOException {
            return in.reduce(made);
          }
        });
        String what = query + " top " + size + " threshold " + threshold + " batch " + batch + ", seed " + seed;
        assertEquals(expected.scoreDocs.length, got.scoreDocs.length, what);
        for (int i = 0; i < got.scoreDocs.length; i++) {
          ScoreDoc e = expected.scoreDocs[i];
          ScoreDoc g = got.scoreDocs[i];
          assertEquals(e.doc, g.doc, what + " at " + i);
          assertEquals(e.score, g.score, 0f, what + " at " + i);
        }
        if (threshold == Integer.MAX_VALUE) {
          assertEquals(expected.totalHits, got.totalHits, what);
        }
      }
    }
  }

  private void awaitFills() throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (cache.filler().inFlight() > 0 && System.nanoTime() < until) {
      Thread.sleep(5);
    }
    assertEquals(0, cache.filler().inFlight(), "fills still running after 30 s");
  }

  /** Reads every hit's doc values and stored fields, as a needle's collector does: "doc n term b id". */
  private static final class ValuesCollector extends SimpleCollector {
    final List<String> out = new ArrayList<>();
    private NumericDocValues n;
    private SortedSetDocValues s;
    private BinaryDocValues b;
    private StoredFields stored;
    private int base;

    static CollectorManager<ValuesCollector, List<String>> manager() {
      return new CollectorManager<>() {
        @Override
        public ValuesCollector newCollector() {
          return new ValuesCollector();
        }

        @Override
        public List<String> reduce(Collection<ValuesCollector> collectors) {
          List<String> all = new ArrayList<>();
          for (ValuesCollector c : collectors) {
            all.addAll(c.out);
          }
          all.sort(null);
          return all;
        }
      };
    }

    @Override
    protected void doSetNextReader(LeafReaderContext context) throws IOException {
      n = context.reader().getNumericDocValues("n");
      s = context.reader().getSortedSetDocValues("s");
      b = context.reader().getBinaryDocValues("b");
      stored = context.reader().storedFields();
      base = context.docBase;
    }

    @Override
    public void collect(int doc) throws IOException {
      assertTrue(n.advanceExact(doc) && s.advanceExact(doc) && b.advanceExact(doc));
      Document d = stored.document(doc);
      assertNotNull(d.get("body"));
      out.add((base + doc) + " " + n.longValue() + " " + s.lookupOrd(s.nextOrd()).utf8ToString() + " "
          + b.binaryValue().hashCode() + " " + d.getField("id").numericValue());
    }

    @Override
    public ScoreMode scoreMode() {
      return ScoreMode.COMPLETE_NO_SCORES;
    }
  }
}
