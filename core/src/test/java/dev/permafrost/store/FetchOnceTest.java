/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static dev.permafrost.testutil.Waits.awaitNoFetch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.blob.FilterBlobStore;
import dev.permafrost.snapshot.CachedManifests;
import dev.permafrost.snapshot.SnapshotRepository;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedSetDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.SimpleCollector;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A dashboard-like search over several mounted indices, one after another (a term and a range, and a collector that
 * names the columns it scans), through a cache far smaller than what the search reads: no byte of any blob is fetched
 * twice in one search (what was prefetched stays until its reader reads it, or is read directly from the store in one
 * request), and the answers equal the local indices'.
 */
class FetchOnceTest {
  private static final int INDICES = 6;
  private static final int DOCS = 20_000;
  private static final String[] COLUMNS = {"n", "s"};
  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());

  /** A store that records every ranged read, by blob: [offset, end) pairs. */
  static final class RecordingBlobStore extends FilterBlobStore {
    final Map<String, List<long[]>> reads = new ConcurrentHashMap<>();

    RecordingBlobStore(BlobStore in) {
      super(in);
    }

    @Override
    public InputStream read(String blobName, long offset, long length) throws IOException {
      reads.computeIfAbsent(blobName, b -> Collections.synchronizedList(new ArrayList<>()))
          .add(new long[] {offset, offset + length});
      return super.read(blobName, offset, length);
    }

    /** Every byte range that more than one request read, as "blob [from, to)", and the bytes read in all. */
    String overlaps(long[] bytes) {
      StringBuilder out = new StringBuilder();
      for (Map.Entry<String, List<long[]>> e : reads.entrySet()) {
        List<long[]> ranges;
        synchronized (e.getValue()) {
          ranges = new ArrayList<>(e.getValue());
        }
        ranges.sort((a, b) -> Long.compare(a[0], b[0]));
        long reach = -1;
        for (long[] r : ranges) {
          bytes[0] += r[1] - r[0];
          if (r[0] < reach) {
            out.append(e.getKey()).append(" [").append(r[0]).append(", ").append(Math.min(reach, r[1])).append(") ");
          }
          reach = Math.max(reach, r[1]);
        }
      }
      return out.toString();
    }
  }

  @Test
  void aSearchThroughACacheSmallerThanItsWorkingSetFetchesNoByteTwice() throws Exception {
    Random random = new Random(seed);
    RecordingBlobStore store = new RecordingBlobStore(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    SnapshotRepository repo = SnapshotRepository.open(store);
    List<Directory> locals = new ArrayList<>();
    for (int i = 0; i < INDICES; i++) {
      Directory local = FSDirectory.open(tmp.resolve("local-" + i));
      // one segment without a compound file, as a force-merged daily index is
      try (IndexWriter w = new IndexWriter(local, new IndexWriterConfig().setUseCompoundFile(false))) {
        for (int d = 0; d < DOCS; d++) {
          Document doc = new Document();
          doc.add(new StringField("status", random.nextInt(20) == 0 ? "404" : "200", Field.Store.NO));
          long t = d * 1000L + random.nextInt(1000);
          doc.add(new LongPoint("t", t));
          doc.add(new NumericDocValuesField("n", random.nextLong()));
          doc.add(new SortedSetDocValuesField("s", new BytesRef("path-" + random.nextInt(2_000))));
          w.addDocument(doc);
        }
        w.forceMerge(1);
      }
      repo.createSnapshot("day-" + i, local);
      locals.add(local);
    }
    Query query = new BooleanQuery.Builder()
        .add(new TermQuery(new Term("status", "404")), BooleanClause.Occur.FILTER)
        .add(LongPoint.newRangeQuery("t", DOCS * 100L, Long.MAX_VALUE), BooleanClause.Occur.FILTER)
        .build();
    List<long[]> want = new ArrayList<>();
    for (Directory local : locals) {
      try (DirectoryReader r = DirectoryReader.open(local)) {
        want.add(search(r, query));
      }
    }
    // every index's columns are ~200 KB: the search reads more than 1 MB, through a cache of 512 KiB
    try (SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(512 << 10)
        .regionSize(64 << 10).tailRegionSize(32 << 10).build()) {
      List<DirectoryReader> readers = new ArrayList<>();
      for (int i = 0; i < INDICES; i++) {
        BlobDirectory dir = BlobDirectory.open(repo, CachedManifests.read(repo, "day-" + i, cache), cache, "day-" + i);
        readers.add(DirectoryReader.open(dir));
      }
      // the indices one after another: two searched at once through a cache that holds little more than both their
      // columns can evict each other's regions between two reads of one of them, which is then fetched again (seen
      // once in CI: "run 2 fetched these ranges twice ... [0, 32768)", seed 17784446582175, not repeated with the
      // seed), so that the verdict would hang on how the two threads interleave
      ExecutorService pool = Executors.newSingleThreadExecutor();
      try {
        for (int run = 0; run < 3; run++) {
          awaitNoFetch(cache); // a prefetch the last run asked for and nobody read may be sent after it returned
          store.reads.clear();
          List<Future<long[]>> answers = new ArrayList<>();
          for (DirectoryReader r : readers) {
            answers.add(pool.submit(() -> search(r, query)));
          }
          for (int i = 0; i < INDICES; i++) {
            long[] got = answers.get(i).get();
            assertEquals(want.get(i)[0], got[0], "hits of index " + i + ", run " + run + ", seed " + seed);
            assertEquals(want.get(i)[1], got[1], "sum of n, index " + i + ", run " + run + ", seed " + seed);
            assertEquals(want.get(i)[2], got[2], "sum of ordinals, index " + i + ", run " + run + ", seed " + seed);
          }
          awaitNoFetch(cache);
          long[] bytes = new long[1];
          String twice = store.overlaps(bytes);
          assertTrue(run > 0 || bytes[0] > cache.sizeInBytes(), "the search reads more than the cache holds: "
              + bytes[0] + " bytes, seed " + seed);
          assertEquals("", twice, "run " + run + " fetched these ranges twice, seed " + seed);
        }
      } finally {
        pool.shutdown();
        for (DirectoryReader r : readers) {
          Directory dir = r.directory();
          r.close();
          dir.close();
        }
      }
    } finally {
      for (Directory local : locals) {
        local.close();
      }
    }
  }

  /** Hits, the sum of column n over them and the sum of their ordinals' terms' lengths: {hits, sum n, sum s}. */
  private static long[] search(IndexReader reader, Query query) throws IOException {
    long[] out = new long[3];
    IndexSearcher searcher = new IndexSearcher(reader);
    searcher.setQueryCache(null);
    searcher.search(query, new SimpleCollector() {
      NumericDocValues n;
      SortedSetDocValues s;

      @Override
      protected void doSetNextReader(LeafReaderContext context) throws IOException {
        ColumnPrefetch.prefetch(context.reader(), COLUMNS);
        n = context.reader().getNumericDocValues("n");
        s = context.reader().getSortedSetDocValues("s");
      }

      @Override
      public void collect(int doc) throws IOException {
        out[0]++;
        assertTrue(n.advanceExact(doc) && s.advanceExact(doc));
        out[1] += n.longValue();
        out[2] += s.lookupOrd(s.nextOrd()).length * 31L + s.docValueCount();
      }

      @Override
      public ScoreMode scoreMode() {
        return ScoreMode.COMPLETE_NO_SCORES;
      }
    });
    return out;
  }
}
