/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.CountingBlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.testutil.RandomIndexes;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.CheckIndex;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Searches through a mounted snapshot against the same index on local disk. */
class MountedIndexTest {
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
    RandomIndexes.build(local, random, 6000, 5);
    store = new CountingBlobStore(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    repo = SnapshotRepository.open(store);
    repo.createSnapshot("snap", local);
  }

  @AfterEach
  void tearDown() throws IOException {
    if (cache != null) {
      assertEquals(cache.sizeInBytes(), Files.size(cache.file()), "the cache file stays at its bound");
      cache.close();
    }
    local.close();
  }

  private SharedRegionCache tinyCache() throws IOException {
    return SharedRegionCache.builder().path(tmp.resolve("cache")).size(128 << 10).regionSize(16 << 10)
        .tailRegionSize(4 << 10).build();
  }

  @Test
  void aColdOpenCostsOnlyTheManifest() throws IOException {
    cache = tinyCache();
    store.reset();
    try (BlobDirectory dir = BlobDirectory.open(repo, "snap", cache);
        DirectoryReader reader = DirectoryReader.open(dir)) {
      assertEquals(1, store.requests(), "seed " + seed + ": only the manifest is read, but store saw " + store.readRequests);
      assertEquals(0, cache.stats().total().fetches());
      try (DirectoryReader expected = DirectoryReader.open(local)) {
        assertEquals(expected.maxDoc(), reader.maxDoc());
        assertEquals(expected.numDocs(), reader.numDocs());
      }
    }
  }

  @Test
  void searchesMatchTheLocalIndexWithACacheFarSmallerThanTheIndex() throws IOException {
    cache = tinyCache();
    try (BlobDirectory dir = BlobDirectory.open(repo, "snap", cache);
        DirectoryReader mounted = DirectoryReader.open(dir);
        DirectoryReader expected = DirectoryReader.open(local)) {
      long indexBytes = 0;
      for (String f : local.listAll()) {
        indexBytes += local.fileLength(f);
      }
      assertTrue(indexBytes > 4 * cache.sizeInBytes(), "the index (" + indexBytes + ") must dwarf the cache");
      IndexSearcher a = new IndexSearcher(expected);
      IndexSearcher b = new IndexSearcher(mounted);
      for (int i = 0; i < 60; i++) {
        Query q = randomQuery();
        Sort sort = random.nextBoolean() ? null : new Sort(new SortField("@timestamp", SortField.Type.LONG, random.nextBoolean()));
        TopDocs x = sort == null ? a.search(q, 20) : a.search(q, 20, sort);
        TopDocs y = sort == null ? b.search(q, 20) : b.search(q, 20, sort);
        assertSameHits(a, b, x, y, "seed " + seed + " query " + q);
      }
      assertTrue(cache.stats().evictions() > 0 || cache.stats().total().directReads() > 0, "the cache should have overflowed");
    }
  }

  private Query randomQuery() {
    return switch (random.nextInt(5)) {
      case 0 -> new TermQuery(new Term("body", RandomIndexes.WORDS[random.nextInt(RandomIndexes.WORDS.length)]));
      case 1 -> {
        long from = RandomIndexes.BASE_TIME + random.nextInt(6000) * 1000L;
        yield LongPoint.newRangeQuery("@timestamp", from, from + random.nextInt(600_000));
      }
      case 2 -> new BooleanQuery.Builder()
          .add(new TermQuery(new Term("body", RandomIndexes.WORDS[random.nextInt(6)])), BooleanClause.Occur.MUST)
          .add(new TermQuery(new Term("status_s", "404")), BooleanClause.Occur.FILTER)
          .add(new TermQuery(new Term("country", RandomIndexes.WORDS[random.nextInt(8)])), BooleanClause.Occur.SHOULD)
          .build();
      case 3 -> new KnnFloatVectorQuery("vector", new float[] {random.nextFloat(), random.nextFloat(), random.nextFloat(),
          random.nextFloat(), random.nextFloat(), random.nextFloat(), random.nextFloat(), random.nextFloat()}, 5);
      default -> new MatchAllDocsQuery();
    };
  }

  private static void assertSameHits(IndexSearcher a, IndexSearcher b, TopDocs x, TopDocs y, String message) throws IOException {
    assertEquals(x.totalHits, y.totalHits, message);
    assertEquals(x.scoreDocs.length, y.scoreDocs.length, message);
    StoredFields fa = a.storedFields();
    StoredFields fb = b.storedFields();
    for (int i = 0; i < x.scoreDocs.length; i++) {
      ScoreDoc s = x.scoreDocs[i];
      ScoreDoc t = y.scoreDocs[i];
      assertEquals(s.doc, t.doc, message);
      assertEquals(s.score, t.score, message);
      Document da = fa.document(s.doc);
      Document db = fb.document(t.doc);
      assertEquals(da.get("id"), db.get("id"), message);
      assertEquals(da.get("body"), db.get("body"), message);
      assertEquals(da.getField("bytes").numericValue(), db.getField("bytes").numericValue(), message);
    }
  }

  @Test
  void checkIndexIsCleanOnAMountedSnapshotWithATinyCache() throws IOException {
    cache = tinyCache();
    try (BlobDirectory dir = BlobDirectory.open(repo, "snap", cache);
        CheckIndex checker = new CheckIndex(dir)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      checker.setInfoStream(new PrintStream(out, true, StandardCharsets.UTF_8));
      CheckIndex.Status status = checker.checkIndex();
      assertTrue(status.clean, "seed " + seed + "\n" + out);
    }
  }

  @Test
  void everyFileReadsBackByteForByte() throws IOException {
    cache = tinyCache();
    try (BlobDirectory dir = BlobDirectory.open(repo, "snap", cache)) {
      for (String name : local.listAll()) {
        if (name.equals("write.lock")) {
          continue;
        }
        byte[] expected = readAll(local, name);
        assertArrayEquals(expected, readAll(dir, name), name);
      }
    }
  }

  static byte[] readAll(Directory dir, String name) throws IOException {
    try (var in = dir.openInput(name, IOContext.DEFAULT)) {
      byte[] bytes = new byte[(int) in.length()];
      List<Integer> cuts = new ArrayList<>();
      int at = 0;
      while (at < bytes.length) {
        int n = Math.min(bytes.length - at, 1 + (int) ((long) at * 7919 % 5000));
        in.readBytes(bytes, at, n);
        at += n;
        cuts.add(n);
      }
      return bytes;
    }
  }
}
