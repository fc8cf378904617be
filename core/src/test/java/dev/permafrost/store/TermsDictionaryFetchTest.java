/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.CountingBlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.snapshot.CachedManifests;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.testutil.Waits;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.SortedSetDocValuesField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ColumnPrefetch} and a keyword's terms dictionary in Lucene's own doc-values format, a plain sequential slice:
 * no larger than the field's ordinals, it is fetched with them, so that turning ordinals into terms (a terms
 * aggregation's buckets, a walk of every term) costs no request of its own; a larger one is read as terms are looked
 * up. Small regions (4 KiB), so that each dictionary spans many: a gap of whole regions between two columns is read
 * and dropped, never kept, and only fetching the dictionary as a column's keeps it. Counts of store requests, never
 * of time; every term read is checked against the local index's.
 */
class TermsDictionaryFetchTest {
  private static final int DOCS = 30_000;
  /** Distinct terms of {@code few}: 2,000 of 12 random letters, a dictionary of about 26 KB; ordinals of 41 KB. */
  private static final int FEW = 2_000;
  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private Directory local;
  private CountingBlobStore store;
  private SnapshotRepository repo;
  private SharedRegionCache cache;

  @BeforeEach
  void setUp() throws IOException {
    Random random = new Random(seed);
    String[] few = new String[FEW];
    for (int i = 0; i < FEW; i++) {
      few[i] = letters(random, 12);
    }
    local = FSDirectory.open(tmp.resolve("local"));
    try (IndexWriter w = new IndexWriter(local, new IndexWriterConfig())) {
      for (int i = 0; i < DOCS; i++) {
        Document d = new Document();
        d.add(new NumericDocValuesField("n", random.nextLong()));
        d.add(new SortedSetDocValuesField("few", new BytesRef(few[random.nextInt(FEW)])));
        d.add(new SortedDocValuesField("single", new BytesRef(few[random.nextInt(FEW)])));
        // a term a document, of 20 random letters: a dictionary of about 600 KB against ordinals of 56 KB
        d.add(new SortedSetDocValuesField("unique", new BytesRef(letters(random, 20))));
        w.addDocument(d);
      }
      w.forceMerge(1);
    }
    store = new CountingBlobStore(FileSystemBlobStore.open(tmp.resolve("repo"), false));
    repo = SnapshotRepository.open(store);
    repo.createSnapshot("snap", local);
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(64 << 20).regionSize(4 << 10)
        .tailRegionSize(4 << 10).build();
  }

  private static String letters(Random random, int n) {
    char[] c = new char[n];
    for (int i = 0; i < n; i++) {
      c[i] = (char) ('a' + random.nextInt(26));
    }
    return new String(c);
  }

  @AfterEach
  void tearDown() throws IOException {
    cache.close();
    local.close();
  }

  @Test
  void aDictionaryNoLargerThanItsOrdinalsComesWithThemAndALargerOneDoesNot() throws Exception {
    try (BlobDirectory dir = BlobDirectory.open(repo, CachedManifests.read(repo, "snap", cache), cache, "snap");
        DirectoryReader reader = DirectoryReader.open(dir);
        DirectoryReader expected = DirectoryReader.open(local)) {
      LeafReader leaf = reader.leaves().get(0).reader();
      LeafReader want = expected.leaves().get(0).reader();
      store.reset();
      ColumnPrefetch.prefetch(leaf, "n", "few", "single", "unique");
      Waits.awaitNoFetch(cache);
      long prefetched = store.readRequests.get();
      assertTrue(prefetched > 0, "the columns were fetched");
      // every term of the small dictionaries, a sorted-set field's and a sorted field's, in order: read as fetched
      assertEquals(terms(want.getSortedSetDocValues("few").termsEnum()),
          terms(leaf.getSortedSetDocValues("few").termsEnum()), "seed " + seed);
      assertEquals(terms(want.getSortedDocValues("single").termsEnum()),
          terms(leaf.getSortedDocValues("single").termsEnum()), "seed " + seed);
      assertEquals(prefetched, store.readRequests.get(),
          "the dictionaries no larger than their ordinals came with them, seed " + seed);
      // the large one is fetched as it is read
      assertEquals(terms(want.getSortedSetDocValues("unique").termsEnum()),
          terms(leaf.getSortedSetDocValues("unique").termsEnum()), "seed " + seed);
      assertTrue(store.readRequests.get() > prefetched,
          "a dictionary larger than its ordinals is not fetched ahead, seed " + seed);
    }
  }

  @Test
  void measuringAFieldCountsItsDictionaryWhenItWouldComeWithItsOrdinals() throws Exception {
    try (BlobDirectory dir = BlobDirectory.open(repo, CachedManifests.read(repo, "snap", cache), cache, "snap");
        DirectoryReader reader = DirectoryReader.open(dir)) {
      LeafReader leaf = reader.leaves().get(0).reader();
      long few = ColumnPrefetch.measure(leaf, leaf.getFieldInfos().fieldInfo("few")).wholeBytes;
      long unique = ColumnPrefetch.measure(leaf, leaf.getFieldInfos().fieldInfo("unique")).wholeBytes;
      // the ordinals (11 bits of 30,000 documents) and the dictionary (over 26,000 bytes), and their addresses
      assertTrue(few > DOCS * 11 / 8 + 24_000, "few: " + few);
      // the ordinals (15 bits of 30,000) and their addresses, without the 600 KB dictionary
      assertTrue(unique < 200_000, "unique: " + unique);
    }
  }

  private static List<BytesRef> terms(TermsEnum terms) throws IOException {
    List<BytesRef> all = new ArrayList<>();
    for (BytesRef t = terms.next(); t != null; t = terms.next()) {
      all.add(BytesRef.deepCopyOf(t));
    }
    return all;
  }
}
