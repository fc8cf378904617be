/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.FaultInjectingBlobStore;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.SnapshotOptions;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.SharedRegionCache;
import dev.permafrost.testutil.RandomIndexes;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TotalHitCountCollectorManager;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A search's timeout bounds all of it: with one index whose store stopped answering, a search ends by its deadline
 * (plus a margin for a busy machine; nothing here measures speed), reports that index as timed out with the other
 * indices' hits when partial results are allowed, and otherwise fails naming the timeout and the index. Once the
 * store answers again, the same mounts answer right: nothing of the stall stayed behind.
 */
class SearchTimeoutTest {
  private static final long MARGIN_NANOS = Duration.ofSeconds(10).toNanos();
  /**
   * The timeout of the searches that time out: idx-2 never answers, so any timeout ends it; this one is long enough
   * that the other two indices, opened and cached before, always finish their CPU work within it.
   */
  private static final Duration TIMEOUT = Duration.ofSeconds(5);
  private static final Query QUERY = new TermQuery(new Term("body", RandomIndexes.WORDS[1]));

  @TempDir Path tmp;
  private final long seed = Long.getLong("tests.seed", System.nanoTime());
  private final List<Directory> locals = new ArrayList<>();
  private FaultInjectingBlobStore faulty;
  private SharedRegionCache cache;
  private Catalog catalog;
  /** Hits of the query in each index, counted on the local copies. */
  private final List<Long> counts = new ArrayList<>();

  @BeforeEach
  void setUp() throws IOException {
    Random random = new Random(seed);
    FileSystemBlobStore fs = FileSystemBlobStore.open(tmp.resolve("repo"), false);
    faulty = new FaultInjectingBlobStore(fs, seed);
    SnapshotRepository repo = SnapshotRepository.open(faulty, StorePolicy.builder().requestTimeout(Duration.ofMinutes(5)).build());
    for (int i = 0; i < 3; i++) {
      Directory local = FSDirectory.open(tmp.resolve("local-" + i));
      RandomIndexes.build(local, random, 3000, 1);
      // nothing kept in the manifest: opening a reader and searching both need the store
      SnapshotRepository.open(fs).createSnapshot("idx-" + i, local,
          SnapshotOptions.DEFAULTS.withKeepWholeLimits(0, 0).withWarmBytesPerFile(0));
      try (DirectoryReader reader = DirectoryReader.open(local)) {
        counts.add((long) new IndexSearcher(reader).count(QUERY));
      }
      locals.add(local);
    }
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(16 << 20).regionSize(1 << 20).build();
    catalog = Catalog.builder(cache).searchTimeout(Duration.ofMinutes(1)).build();
    for (int i = 0; i < 3; i++) {
      catalog.mount("idx-" + i, repo, "idx-" + i);
    }
    // the data of idx-2 hangs: its store stops answering in the middle of every response
    Set<String> slow = new HashSet<>();
    for (FileEntry f : repo.readManifest("idx-2").files()) {
      slow.add(f.blobName());
    }
    // the healthy indices are opened and cached first: within the timed searches they cost only CPU, well inside the
    // timeout even on a slow, busy machine (the timeout, not their speed, is what the tests are about)
    SearchResponse warm = catalog.search(SearchRequest.builder(QUERY).indices("idx-0", "idx-1").exactTotalHits(true)
        .build());
    assertEquals(counts.get(0) + counts.get(1), warm.totalHits().value());
    faulty.targets(slow::contains).hangRate(1);
  }

  @AfterEach
  void tearDown() throws IOException {
    faulty.heal();
    catalog.close();
    cache.close();
    for (Directory d : locals) {
      d.close();
    }
  }

  private SearchRequest.Builder request() {
    return SearchRequest.builder(QUERY).indices("idx-*").size(20).exactTotalHits(true);
  }

  private static void assertEndedBy(long start, Duration timeout) {
    long took = System.nanoTime() - start;
    assertTrue(took <= timeout.toNanos() + MARGIN_NANOS, "the search took " + took / 1_000_000 + " ms, past its timeout");
  }

  @Test
  void partialResultsReportTheIndexThatTimedOutAndKeepTheOthersHits() throws IOException {
    long start = System.nanoTime();
    SearchResponse r = catalog.search(request().timeout(TIMEOUT).allowPartialResults(true).build());
    assertEndedBy(start, TIMEOUT);
    assertTrue(r.timedOut(), r.toString());
    assertEquals(List.of("idx-2"), r.timedOutIndices());
    assertEquals(TotalHits.Relation.GREATER_THAN_OR_EQUAL_TO, r.totalHits().relation(), "a timed-out index was not counted");
    assertEquals(counts.get(0) + counts.get(1), r.totalHits().value());
    assertTrue(r.hits().stream().allMatch(h -> !h.index().equals("idx-2")));
    assertFalse(r.searched().contains("idx-2"));
  }

  @Test
  void withoutPartialResultsTheSearchFailsNamingTheTimeoutAndTheIndex() {
    long start = System.nanoTime();
    SearchTimeoutException e = assertThrows(SearchTimeoutException.class,
        () -> catalog.search(request().timeout(TIMEOUT).build()));
    assertEndedBy(start, TIMEOUT);
    assertEquals(List.of("idx-2"), e.indices());
    assertTrue(e.getMessage().contains("5s") && e.getMessage().contains("idx-2"), e.getMessage());
  }

  @Test
  void theCatalogsDefaultTimeoutAppliesToARequestWithoutOne() throws IOException {
    try (Catalog quick = Catalog.builder(cache).searchTimeout(Duration.ofMillis(500)).build()) {
      quick.mount("idx-2", SnapshotRepository.open(faulty), "idx-2");
      long start = System.nanoTime();
      SearchTimeoutException e = assertThrows(SearchTimeoutException.class,
          () -> quick.search(SearchRequest.builder(QUERY).indices("idx-2").build()));
      assertEndedBy(start, Duration.ofMillis(500));
      assertTrue(e.getMessage().contains("500ms"), e.getMessage());
    }
  }

  @Test
  void aCollectorSearchTimesOutTheSameWay() throws IOException {
    long start = System.nanoTime();
    CollectedResponse<Integer> r = catalog.search(request().timeout(TIMEOUT).allowPartialResults(true).build(),
        new TotalHitCountCollectorManager(new IndexSearcher.LeafSlice[0]));
    assertEndedBy(start, TIMEOUT);
    assertEquals(List.of("idx-2"), r.timedOutIndices());
    assertEquals(counts.get(0) + counts.get(1), r.result().longValue());
  }

  @Test
  void onceTheStoreAnswersTheSameMountsAnswerRight() throws IOException {
    assertThrows(SearchTimeoutException.class, () -> catalog.search(request().timeout(Duration.ofMillis(500)).build()));
    faulty.heal();
    SearchResponse r = catalog.search(request().build());
    assertFalse(r.timedOut());
    assertEquals(TotalHits.Relation.EQUAL_TO, r.totalHits().relation());
    assertEquals(counts.get(0) + counts.get(1) + counts.get(2), r.totalHits().value());
    try (Lease lease = catalog.acquire("idx-2"); DirectoryReader local = DirectoryReader.open(locals.get(2))) {
      TopDocs want = new IndexSearcher(local).search(QUERY, 50);
      TopDocs got = lease.searcher().search(QUERY, 50);
      assertEquals(want.scoreDocs.length, got.scoreDocs.length);
      for (int i = 0; i < want.scoreDocs.length; i++) {
        assertEquals(want.scoreDocs[i].doc, got.scoreDocs[i].doc, "hit " + i);
      }
    }
  }
}
