/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.CountingBlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.store.BlobDirectory;
import dev.permafrost.store.SharedRegionCache;
import dev.permafrost.testutil.Waits;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.TieredMergePolicy;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A snapshot's warm set ({@link SnapshotOptions#withWarmQueries}): the bytes its warm searches read travel in the
 * manifest, so the same searches on a cold mount cost no request past the manifest's, read the local index's bytes
 * and find its hits; the set is bounded by its limit, and a failing warm search fails the snapshot by name.
 */
class WarmSetTest {
  private static final int DOCS = 20_000;
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
    TieredMergePolicy files = new TieredMergePolicy();
    files.setNoCFSRatio(0); // a file per format, as large segments have
    try (IndexWriter w = new IndexWriter(local, new IndexWriterConfig().setUseCompoundFile(false).setMergePolicy(files))) {
      for (int i = 0; i < DOCS; i++) {
        Document d = new Document();
        d.add(new StringField("ip", "10.0." + random.nextInt(40) + "." + random.nextInt(250), Field.Store.NO));
        d.add(new TextField("body", "w" + random.nextInt(300) + " w" + random.nextInt(300) + " w" + random.nextInt(9),
            Field.Store.NO));
        d.add(new SortedDocValuesField("path", new BytesRef("/p/" + random.nextInt(2_000))));
        d.add(new StoredField("id", i));
        w.addDocument(d);
      }
      w.forceMerge(1);
    }
    store = new CountingBlobStore(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    repo = SnapshotRepository.open(store);
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(64 << 20).regionSize(32 << 10)
        .tailRegionSize(32 << 10).build();
  }

  @AfterEach
  void tearDown() throws IOException {
    cache.close();
    local.close();
  }

  private List<Query> sampleQueries() {
    List<Query> queries = new ArrayList<>();
    queries.add(new TermQuery(new Term("ip", "10.0." + random.nextInt(40) + "." + random.nextInt(250))));
    queries.add(new BooleanQuery.Builder()
        .add(new TermQuery(new Term("body", "w" + random.nextInt(300))), BooleanClause.Occur.SHOULD)
        .add(new TermQuery(new Term("body", "w" + random.nextInt(9))), BooleanClause.Occur.SHOULD)
        .build());
    return queries;
  }

  @Test
  void theWarmSearchesOfAColdMountCostNoRequestPastTheManifestAndFindTheLocalHits() throws Exception {
    List<Query> queries = sampleQueries();
    repo.createSnapshot("plain", local);
    repo.createSnapshot("warm", local, SnapshotOptions.DEFAULTS.withWarmQueries(queries.toArray(Query[]::new)));
    long[] requests = new long[2];
    for (String snapshot : List.of("plain", "warm")) {
      Waits.awaitNoFetch(cache); // what the last searches asked for and did not wait for is sent before the reset
      cache.clear();
      store.reset();
      try (BlobDirectory dir = BlobDirectory.open(repo, snapshot, cache);
          DirectoryReader reader = DirectoryReader.open(dir);
          DirectoryReader want = DirectoryReader.open(local)) {
        assertEquals(1, store.readRequests.get(), "a cold open reads the manifest and nothing else, " + snapshot);
        for (Query q : queries) {
          assertSameHits(new IndexSearcher(want).search(q, 10), new IndexSearcher(reader).search(q, 10), q);
        }
        Waits.awaitNoFetch(cache);
        requests[snapshot.equals("warm") ? 1 : 0] = store.readRequests.get() - 1;
      }
    }
    assertTrue(requests[0] > 0, "without a warm set the searches fetch: " + requests[0] + " requests, seed " + seed);
    assertEquals(0, requests[1], "with it they read only the manifest's bytes, seed " + seed);
  }

  @Test
  void aWarmSearchWithACollectorKeepsWhatItReadsAndTheBytesAreTheLocalFilesBytes() throws Exception {
    SnapshotOptions.WarmSearch lookUpPaths = searcher -> {
      // an aggregation-like read: the ordinals of a few documents, then their terms in the column's dictionary
      SortedDocValues paths = searcher.getIndexReader().leaves().get(0).reader().getSortedDocValues("path");
      for (int doc = 0; doc < 50; doc++) {
        assertTrue(paths.advanceExact(doc * 97));
        paths.lookupOrd(paths.ordValue());
      }
    };
    SnapshotInfo info = repo.createSnapshot("warm", local, SnapshotOptions.DEFAULTS.withWarmSearches(List.of(lookUpPaths)));
    SnapshotManifest manifest = CachedManifests.read(repo, "warm", cache);
    boolean dvdKept = false;
    Waits.awaitNoFetch(cache);
    cache.clear();
    store.reset();
    try (BlobDirectory dir = BlobDirectory.open(repo, manifest, cache, "warm")) {
      for (FileEntry file : manifest.files()) {
        if (file.isKeptWhole()) {
          continue;
        }
        dvdKept |= file.name().endsWith(".dvd") && file.warmRanges().size() > 2; // more than header and footer
        // every kept range, read back through the directory, is the local file's
        try (IndexInput mine = dir.openInput(file.name(), IOContext.DEFAULT);
            IndexInput theirs = local.openInput(file.name(), IOContext.DEFAULT)) {
          for (FileEntry.WarmRange r : file.warmRanges()) {
            byte[] a = new byte[r.bytes().length];
            byte[] b = new byte[a.length];
            mine.seek(r.offset());
            mine.readBytes(a, 0, a.length);
            theirs.seek(r.offset());
            theirs.readBytes(b, 0, b.length);
            assertTrue(Arrays.equals(a, b), file.name() + " at " + r.offset() + ", seed " + seed);
          }
        }
      }
      assertEquals(0, store.readRequests.get(), "the kept ranges are served from the manifest");
      try (DirectoryReader reader = DirectoryReader.open(dir)) {
        lookUpPaths.run(new IndexSearcher(reader));
      }
      Waits.awaitNoFetch(cache); // a request asked for and not sent yet must not pass for none
      assertEquals(0, store.readRequests.get(), "the warm search again, on the mount: no request");
    }
    assertTrue(dvdKept, "the column's dictionary is in the warm set: " + info);
  }

  @Test
  void theWarmSetIsBoundedByItsLimitSmallestRangesFirst() throws Exception {
    List<Query> queries = sampleQueries();
    repo.createSnapshot("plain", local);
    long plain = hotBytes("plain");
    long unbounded = hotBytes(snapshot("all", queries, SnapshotOptions.DEFAULT_WARM_BYTES_LIMIT));
    assertTrue(unbounded > plain, "the warm searches add bytes: " + unbounded + " against " + plain);
    assertEquals(plain, hotBytes(snapshot("none", queries, 0)), "a limit of 0 keeps nothing more");
    int limit = (int) Math.max(1, (unbounded - plain) / 3);
    long bounded = hotBytes(snapshot("third", queries, limit));
    assertTrue(bounded > plain && bounded <= plain + limit, "at most " + limit + " more bytes: " + (bounded - plain)
        + ", seed " + seed);
  }

  @Test
  void aWarmSearchThatFailsFailsTheSnapshotByName() throws Exception {
    SnapshotOptions options = SnapshotOptions.DEFAULTS.withWarmSearches(List.of(
        SnapshotOptions.WarmSearch.topHits(new TermQuery(new Term("ip", "x"))),
        searcher -> {
          throw new IllegalStateException("no such dashboard");
        }));
    IOException e = assertThrows(IOException.class, () -> repo.createSnapshot("broken", local, options));
    assertTrue(e.getMessage().contains("warm search 2 of 2") && e.getMessage().contains("'broken'")
        && e.getMessage().contains("no such dashboard"), e.getMessage());
    assertFalse(repo.listSnapshots().contains("broken"), "no manifest is written");
  }

  private String snapshot(String name, List<Query> queries, int limit) throws IOException {
    repo.createSnapshot(name, local,
        SnapshotOptions.DEFAULTS.withWarmQueries(queries.toArray(Query[]::new)).withWarmBytesLimit(limit));
    return name;
  }

  private long hotBytes(String snapshot) throws IOException {
    long bytes = 0;
    for (FileEntry file : CachedManifests.read(repo, snapshot, cache).files()) {
      for (FileEntry.WarmRange r : file.warmRanges()) {
        bytes += r.bytes().length;
      }
    }
    return bytes;
  }

  private static void assertSameHits(TopDocs want, TopDocs got, Query q) {
    assertEquals(want.totalHits, got.totalHits, q.toString());
    assertEquals(want.scoreDocs.length, got.scoreDocs.length, q.toString());
    for (int i = 0; i < want.scoreDocs.length; i++) {
      ScoreDoc a = want.scoreDocs[i];
      ScoreDoc b = got.scoreDocs[i];
      assertEquals(a.doc, b.doc, q + " hit " + i);
      assertEquals(a.score, b.score, q + " hit " + i);
    }
  }
}
