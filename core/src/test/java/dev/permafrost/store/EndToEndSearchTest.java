/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.snapshot.SnapshotInfo;
import dev.permafrost.snapshot.SnapshotOptions;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.testutil.RandomIndexes;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopScoreDocCollectorManager;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end on one blob store: snapshot a real Lucene index into it, mount the snapshot with a
 * {@link BlobDirectory}, search it, and compare with the local index. Each backend runs it against its server.
 */
public abstract class EndToEndSearchTest {
  @TempDir protected Path tmp;

  /** A fresh, empty store. */
  protected abstract BlobStore createStore() throws Exception;

  @Test
  void snapshotMountAndSearchGiveTheLocalResults() throws Exception {
    long seed = Long.getLong("tests.seed", System.nanoTime());
    Random random = new Random(seed);
    try (BlobStore store = createStore();
        Directory local = FSDirectory.open(tmp.resolve("index"))) {
      RandomIndexes.build(local, random, 4000, 3);
      SnapshotRepository repo = SnapshotRepository.open(store);
      SnapshotInfo info = repo.createSnapshot("e2e", local, SnapshotOptions.DEFAULTS.withPointFields("@timestamp"));
      assertEquals(List.of("e2e"), repo.listSnapshots());
      try (SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(256 << 10)
              .regionSize(32 << 10).tailRegionSize(4 << 10).build();
          BlobDirectory dir = BlobDirectory.open(repo, "e2e", cache);
          DirectoryReader mounted = DirectoryReader.open(dir);
          DirectoryReader expected = DirectoryReader.open(local)) {
        assertEquals(info.numDocs(), mounted.numDocs());
        IndexSearcher a = new IndexSearcher(expected);
        IndexSearcher b = new IndexSearcher(mounted);
        for (int i = 0; i < 20; i++) {
          Query q = i % 2 == 0
              ? new TermQuery(new Term("body", RandomIndexes.WORDS[random.nextInt(RandomIndexes.WORDS.length)]))
              : new BooleanQuery.Builder()
                  .add(LongPoint.newRangeQuery("@timestamp", RandomIndexes.BASE_TIME + random.nextInt(4000) * 1000L,
                      RandomIndexes.BASE_TIME + 4_000_000L), BooleanClause.Occur.FILTER)
                  .add(new TermQuery(new Term("status_s", "404")), BooleanClause.Occur.MUST)
                  .build();
          TopDocs x = a.search(q, 10);
          TopDocs y = b.search(q, 10);
          // the same hits through the wrapper that fetches their values together (whole columns past a few hits)
          TopDocs z = b.search(q, HitPrefetchingCollector.manager(
              new TopScoreDocCollectorManager(10, Integer.MAX_VALUE), List.of("@timestamp", "status_s", "country"), true));
          assertEquals(x.totalHits, y.totalHits, "seed " + seed + " " + q);
          assertEquals(a.count(q), z.totalHits.value(), "every hit counted, seed " + seed + " " + q);
          for (int k = 0; k < x.scoreDocs.length; k++) {
            ScoreDoc s = x.scoreDocs[k];
            assertEquals(s.doc, y.scoreDocs[k].doc, "seed " + seed + " " + q);
            assertEquals(s.doc, z.scoreDocs[k].doc, "seed " + seed + " " + q);
            assertEquals(a.storedFields().document(s.doc).get("body"), b.storedFields().document(s.doc).get("body"));
          }
        }
        assertTrue(cache.stats().total().storeRequests() > 0, "the searches must have read from " + store.describe());
      }
      repo.deleteSnapshot("e2e");
      assertEquals(List.of(), store.list(""), "deleting the only snapshot leaves an empty repository");
    }
  }
}
